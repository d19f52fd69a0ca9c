package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

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

    /**
     * A statement passes the verdict when PostgreSQL read it as one statement of this database, over relations the
     * inventory lists (not an invented schema). Whether it may also be run here is the guard's answer.
     */
    @Override
    public boolean passes() {
        return validation.notParsed() == null && validation.unknownTables().isEmpty();
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
     *            true only when PostgreSQL's analysis (as the plan role) found exactly one SELECT that reads only the
     *            inventory, calls only allowed functions and locks nothing: a statement the agent may run for the
     *            person; false is the guard's objection, not proof that the statement writes
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
     *            the relations the statement reads, as PostgreSQL's analysis names them (a view's, not its tables)
     * @param unknownTables
     *            relations it reads that are not in the inventory, or that PostgreSQL reported as not existing
     * @param unknownColumns
     *            columns PostgreSQL reported as not existing
     * @param limits
     *            what the check does not cover, said once so no reader takes a clean result for more than it is
     * @param notParsed
     *            PostgreSQL's objection when it could not parse and analyse the text as one statement of this database;
     *            null when it could (and in events recorded before this field existed)
     */
    public record Validation(List<String> tables, List<String> unknownTables, List<String> unknownColumns,
            String limits, @JsonInclude(JsonInclude.Include.NON_NULL) String notParsed) {

        public Validation(List<String> tables, List<String> unknownTables, List<String> unknownColumns,
                String limits) {
            this(tables, unknownTables, unknownColumns, limits, null);
        }

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
