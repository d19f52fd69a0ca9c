package dev.countersign.contracts.catalogue;

import java.util.List;

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

    public String hash() {
        if (!isValid()) {
            throw new IllegalStateException("Invalid parameters have no hash: " + violations);
        }
        return ParamsHash.of(normalised);
    }
}
