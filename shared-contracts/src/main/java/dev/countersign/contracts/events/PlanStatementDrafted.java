package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * A plan turn drafted one statement for the person to run themselves. The agent never runs it.
 *
 * @param dialect
 *            always {@code postgresql} in this version
 * @param rationale
 *            the model's prose after the statement (may be empty)
 * @param guard
 *            the statement guard's classification, in the guard's own words
 * @param validation
 *            what checking the statement's identifiers against the run's schema inventory found
 */
public record PlanStatementDrafted(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        String tenantId,
        String userId,
        String conversationId,
        UUID turnId,
        String dialect,
        String sql,
        String rationale,
        Guard guard,
        Validation validation) implements PlanEvent {

    public static final String TYPE = "PlanStatementDrafted";

    /** A statement passes the verdict only over relations the inventory lists (not an invented schema). */
    @Override
    public boolean passes() {
        return validation.unknownTables().isEmpty();
    }

    public PlanStatementDrafted {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(conversationId, "conversationId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(sql, "sql");
        Objects.requireNonNull(guard, "guard");
        Objects.requireNonNull(validation, "validation");
        rationale = rationale == null ? "" : rationale;
    }

    /**
     * @param singleSelect
     *            true only when the guard read exactly one SELECT (or WITH ... SELECT) and found nothing it knows can
     *            write, lock or run other SQL; false is the guard's objection, not proof that the statement writes
     * @param reason
     *            what the guard found, no stronger than it can tell
     */
    public record Guard(boolean singleSelect, String reason) {

        public Guard {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * @param tables
     *            the relations the statement names, as written (CTE names excluded)
     * @param unknownTables
     *            names that are not in the inventory (nor CTEs of the statement)
     * @param unknownColumns
     *            column names not found in the inventory's columns of the tables they are read from
     * @param limits
     *            what the check does not cover, said once so no reader takes a clean result for more than it is
     */
    public record Validation(List<String> tables, List<String> unknownTables, List<String> unknownColumns,
            String limits) {

        public Validation {
            tables = tables == null ? List.of() : List.copyOf(tables);
            unknownTables = unknownTables == null ? List.of() : List.copyOf(unknownTables);
            unknownColumns = unknownColumns == null ? List.of() : List.copyOf(unknownColumns);
            limits = limits == null ? "" : limits;
        }

        public boolean clean() {
            return unknownTables.isEmpty() && unknownColumns.isEmpty();
        }
    }
}
