package dev.countersign.contracts.catalogue;

import static dev.countersign.contracts.catalogue.ParamSpec.optional;
import static dev.countersign.contracts.catalogue.ParamSpec.optionalLines;
import static dev.countersign.contracts.catalogue.ParamSpec.optionalText;
import static dev.countersign.contracts.catalogue.ParamSpec.required;
import static dev.countersign.contracts.catalogue.ParamSpec.requiredLines;
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
    public static final String EDIT_TRANSACTION = "ledger.transaction.edit";
    public static final String DELETE_TRANSACTION = "ledger.transaction.delete";
    public static final String DRAFT_PLAN = "training.plan.draft";
    public static final String REVISE_PLAN = "training.plan.revise";
    public static final String SEND_MAIL = "mail.send";
    public static final String CREATE_TICKET = "ticket.create";

    /** The domain of kinds that reach outside the database (e-mail, tickets). */
    public static final String EXTERNAL_DOMAIN = "external";

    /** Spending categories every tenant may use, besides those already in its ledger. */
    public static final List<String> DEFAULT_CATEGORIES = List.of("groceries", "coffee", "eating out", "rent",
            "utilities", "transport", "health", "entertainment", "shopping", "travel", "other");

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
                (params, before, policy) -> new BigDecimal(params.get("amount").asText())
                        .compareTo(policy.highImpactThreshold()) >= 0 ? Tier.HIGH : Tier.LOW,
                (params, names) -> "Add an expense of %s (%s%s) on %s to %s".formatted(
                        params.get("amount").asText(),
                        params.get("category").asText(),
                        params.hasNonNull("description") ? ": " + params.get("description").asText() : "",
                        params.get("occurredOn").asText(),
                        names.wallet(params.get("walletId").asText()))));
        register(new ActionDefinition(
                RENAME_WALLET,
                "ledger",
                "Give one of the user's wallets a new name. A wallet's currency can never be changed.",
                List.of(
                        required("walletId", ParamType.UUID, "The wallet to rename."),
                        requiredText("name", 60, "The new name.")),
                Set.of("name"),
                (params, before, policy) -> Tier.MEDIUM,
                (params, names) -> "Rename %s to \"%s\"".formatted(
                        names.wallet(params.get("walletId").asText()), params.get("name").asText())));
        register(new ActionDefinition(
                EDIT_TRANSACTION,
                "ledger",
                "Change fields of one of the user's transactions. Only the listed fields can change.",
                List.of(
                        required("transactionId", ParamType.UUID, "The transaction to change."),
                        optional("amount", ParamType.MONEY, "The new amount, positive, at most two decimals."),
                        optionalText("category", 40, "The new spending category."),
                        optionalText("description", 200, "The new note."),
                        optional("occurredOn", ParamType.DATE, "The new day of the expense, yyyy-MM-dd.")),
                Set.of("amount", "category", "description", "occurredOn"),
                // HIGH when the amount it leaves or the amount it replaces is at or above the threshold: editing a
                // large transaction down is as consequential as editing a small one up.
                (params, before, policy) -> atOrAbove(params, "amount", policy) || atOrAbove(before, "amount", policy)
                        ? Tier.HIGH
                        : Tier.MEDIUM,
                (params, names) -> "Change %s: %s".formatted(names.transaction(params.get("transactionId").asText()),
                        changes(params, "amount", "category", "description", "occurredOn"))));
        register(new ActionDefinition(
                DELETE_TRANSACTION,
                "ledger",
                "Delete one of the user's transactions.",
                List.of(required("transactionId", ParamType.UUID, "The transaction to delete.")),
                Set.of(),
                (params, before, policy) -> Tier.HIGH,
                (params, names) -> "Delete " + names.transaction(params.get("transactionId").asText())));
        register(new ActionDefinition(
                DRAFT_PLAN,
                "training",
                "Create a new training plan as a draft. Only the user can make a plan active, in the app.",
                List.of(
                        requiredText("name", 80, "The plan's name."),
                        optionalText("goal", 200, "What the plan works towards."),
                        required("startsOn", ParamType.DATE, "The first day of the plan, yyyy-MM-dd."),
                        requiredLines("schedule", 2000, "The workouts, one per line, e.g. 'Mon: 5 km easy run'.")),
                Set.of(),
                (params, before, policy) -> Tier.LOW,
                (params, names) -> "Draft training plan \"%s\" from %s".formatted(params.get("name").asText(),
                        params.get("startsOn").asText())));
        register(new ActionDefinition(
                REVISE_PLAN,
                "training",
                "Change a draft training plan. Active and archived plans cannot be revised.",
                List.of(
                        required("planId", ParamType.UUID, "The draft plan to change."),
                        optionalText("name", 80, "The new name."),
                        optionalText("goal", 200, "The new goal."),
                        optional("startsOn", ParamType.DATE, "The new first day, yyyy-MM-dd."),
                        optionalLines("schedule", 2000, "The new workouts, one per line.")),
                Set.of("name", "goal", "startsOn", "schedule"),
                (params, before, policy) -> Tier.LOW,
                (params, names) -> "Revise draft %s: %s".formatted(names.plan(params.get("planId").asText()),
                        changes(params, "name", "goal", "startsOn", "schedule"))));
        register(new ActionDefinition(
                SEND_MAIL,
                EXTERNAL_DOMAIN,
                "E-mail the requestor of a support case.",
                List.of(
                        required("caseId", ParamType.UUID, "The case whose requestor gets the e-mail."),
                        requiredText("subject", 150, "The subject line."),
                        requiredLines("body", 5000, "The message text.")),
                Set.of(),
                (params, before, policy) -> Tier.HIGH,
                (params, names) -> "E-mail the requestor of case %s: \"%s\"".formatted(params.get("caseId").asText(),
                        params.get("subject").asText())));
        register(new ActionDefinition(
                CREATE_TICKET,
                EXTERNAL_DOMAIN,
                "Create a ticket in the external ticket system.",
                List.of(
                        requiredText("title", 150, "The ticket's title."),
                        requiredLines("description", 5000, "What the ticket is about.")),
                Set.of(),
                (params, before, policy) -> Tier.HIGH,
                (params, names) -> "Create a ticket: \"%s\"".formatted(params.get("title").asText())));
    }

    /**
     * Whether {@code fields} (parameters or a staged row; may be null) has a money {@code field} at or above the
     * threshold.
     */
    private static boolean atOrAbove(JsonNode fields, String field, TierPolicy policy) {
        return fields != null && fields.hasNonNull(field)
                && new BigDecimal(fields.get(field).asText()).compareTo(policy.highImpactThreshold()) >= 0;
    }

    /** "field to value" for each of {@code fields} present in the parameters. */
    private static String changes(JsonNode params, String... fields) {
        List<String> changes = new ArrayList<>();
        for (String field : fields) {
            if (params.hasNonNull(field)) {
                changes.add("%s to \"%s\"".formatted(field, params.get(field).asText()));
            }
        }
        return String.join(", ", changes);
    }

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
