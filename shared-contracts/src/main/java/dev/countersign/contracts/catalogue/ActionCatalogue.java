package dev.countersign.contracts.catalogue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Every kind of write the agent may propose, read from the kinds' declarations ({@code countersign/kinds.list} and the
 * files it names): the single source of truth that the agent's tools, the executor's validation and both pages' cards
 * read. A kind that is not declared cannot be staged.
 */
public final class ActionCatalogue {

    /** The domain of kinds that reach outside the database (e-mail, tickets). */
    public static final String EXTERNAL_DOMAIN = "external";

    /** Spending categories every tenant may use, besides those already in its ledger. */
    public static final List<String> DEFAULT_CATEGORIES = List.of("groceries", "coffee", "eating out", "rent",
            "utilities", "transport", "health", "entertainment", "shopping", "travel", "other");

    private static final Map<String, ActionDefinition> DEFINITIONS = KindDeclarations.load();

    /**
     * What a stored action does, in words, naming rows as {@code names} says; {@code fallback} (its stored summary)
     * when its kind or parameters are not ones this catalogue describes.
     */
    public static String describe(String kind, JsonNode params, Names names, String fallback) {
        ValidatedParams validated = validate(kind, params);
        return validated.isValid() ? validated.definition().describe(validated.normalised(), names) : fallback;
    }

    private ActionCatalogue() {
    }

    public static Optional<ActionDefinition> find(String kind) {
        return Optional.ofNullable(DEFINITIONS.get(kind));
    }

    public static Collection<ActionDefinition> all() {
        return DEFINITIONS.values();
    }

    /**
     * Checks raw parameters against the kind's specification and normalises them. Unknown members are refused, not
     * dropped: a proposal is either exactly what the catalogue allows or it is rejected.
     */
    public static ValidatedParams validate(String kind, JsonNode raw) {
        ActionDefinition definition = DEFINITIONS.get(kind);
        if (definition == null) {
            return new ValidatedParams(null, null,
                    List.of(new Violation("kind", "unknown action kind '%s'; known kinds: %s"
                            .formatted(kind, String.join(", ", DEFINITIONS.keySet())))));
        }
        List<Violation> violations = new ArrayList<>();
        if (raw == null || !raw.isObject()) {
            return new ValidatedParams(definition, null,
                    List.of(new Violation("params", "must be a JSON object")));
        }
        ObjectNode normalised = JsonNodeFactory.instance.objectNode();
        raw.fieldNames().forEachRemaining(name -> {
            if (definition.param(name).isEmpty()) {
                violations.add(new Violation(name, "is not a parameter of %s; allowed: %s".formatted(
                        kind, definition.params().stream().map(ParamSpec::name).toList())));
            }
        });
        for (ParamSpec spec : definition.params()) {
            JsonNode value = raw.get(spec.name());
            if (value == null || value.isNull()) {
                if (spec.required()) {
                    violations.add(new Violation(spec.name(), "is required: " + spec.description()));
                }
                continue;
            }
            ParamValues.normalise(spec, value)
                    .ifOk(normal -> normalised.put(spec.name(), normal))
                    .ifError(message -> violations.add(new Violation(spec.name(), message)));
        }
        if (!definition.editableFields().isEmpty()
                && definition.editableFields().stream().noneMatch(normalised::hasNonNull)
                && definition.editableFields().stream().noneMatch(raw::hasNonNull)) {
            violations.add(new Violation("params", "change at least one of " + sorted(definition.editableFields())));
        }
        return violations.isEmpty()
                ? new ValidatedParams(definition, normalised, List.of())
                : new ValidatedParams(definition, null, List.copyOf(violations));
    }

    private static List<String> sorted(Set<String> names) {
        return names.stream().sorted().toList();
    }
}
