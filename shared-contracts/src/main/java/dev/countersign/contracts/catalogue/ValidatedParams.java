package dev.countersign.contracts.catalogue;

import java.util.List;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.json.ParamsHash;

/**
 * The outcome of checking parameters against the catalogue: either normalised parameters (what is hashed and stored) or
 * the list of violations, never both.
 */
public record ValidatedParams(ActionDefinition definition, ObjectNode normalised, List<Violation> violations) {

    public boolean isValid() {
        return violations.isEmpty();
    }

    /** The violations as one line, for a refusal the model or the user reads. */
    public String violationsText() {
        return violations.stream().map(Object::toString).collect(Collectors.joining("; "));
    }

    /** What the action will do, in words (from the normalised parameters). */
    public String summary() {
        return definition.describe(normalised);
    }

    /** Canonical JSON of the normalised parameters, hashed (computed on each call: keep it when you need it twice). */
    public String hash() {
        if (!isValid()) {
            throw new IllegalStateException("Invalid parameters have no hash: " + violations);
        }
        return ParamsHash.of(normalised);
    }
}
