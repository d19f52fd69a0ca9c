package dev.countersign.contracts.catalogue;

import static dev.countersign.contracts.catalogue.ParamSpec.optionalText;
import static dev.countersign.contracts.catalogue.ParamSpec.required;
import static dev.countersign.contracts.catalogue.ParamSpec.requiredText;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.Tier;

/**
 * Every kind of write the agent may propose: the single source of truth that the agent's tools, the executor's
 * validation and (later) the UI's diff all read. A kind that is not listed here cannot be staged.
 */
public final class ActionCatalogue {

    public static final String CREATE_TRANSACTION = "ledger.transaction.create";
    public static final String RENAME_WALLET = "ledger.wallet.rename";

    private static final Map<String, ActionDefinition> DEFINITIONS = new LinkedHashMap<>();

    static {
        register(new ActionDefinition(
                CREATE_TRANSACTION,
                "ledger",
                "Record an expense in one of the user's wallets.",
                List.of(
                        required("walletId", ParamType.UUID, "The wallet to record the expense in."),
                        required("amount", ParamType.MONEY, "The amount spent, positive, at most two decimals."),
                        requiredText("category", 40, "The spending category, e.g. coffee or groceries."),
                        optionalText("description", 200, "A short note shown in the ledger."),
                        required("occurredOn", ParamType.DATE, "The day of the expense, yyyy-MM-dd.")),
                Set.of(),
                (params, policy) -> new BigDecimal(params.get("amount").asText())
                        .compareTo(policy.highImpactThreshold()) >= 0 ? Tier.HIGH : Tier.LOW,
                params -> "Add an expense of %s (%s%s) on %s to wallet %s".formatted(
                        params.get("amount").asText(),
                        params.get("category").asText(),
                        params.hasNonNull("description") ? ": " + params.get("description").asText() : "",
                        params.get("occurredOn").asText(),
                        params.get("walletId").asText())));
        register(new ActionDefinition(
                RENAME_WALLET,
                "ledger",
                "Give one of the user's wallets a new name. A wallet's currency can never be changed.",
                List.of(
                        required("walletId", ParamType.UUID, "The wallet to rename."),
                        requiredText("name", 60, "The new name.")),
                Set.of("name"),
                (params, policy) -> Tier.MEDIUM,
                params -> "Rename wallet %s to \"%s\"".formatted(
                        params.get("walletId").asText(), params.get("name").asText())));
    }

    private ActionCatalogue() {
    }

    private static void register(ActionDefinition definition) {
        DEFINITIONS.put(definition.kind(), definition);
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
        return violations.isEmpty()
                ? new ValidatedParams(definition, normalised, List.of())
                : new ValidatedParams(definition, null, List.copyOf(violations));
    }
}
