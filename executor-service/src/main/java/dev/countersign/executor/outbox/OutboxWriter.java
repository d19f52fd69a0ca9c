package dev.countersign.executor.outbox;

import static dev.countersign.executor.db.ArrayParameters.column;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.db.TenantTransactions;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Appends an event to the outbox inside the caller's transaction, so the event exists if and only if the state change
 * it reports was committed. {@link OutboxRelay} publishes it afterwards. An outcome of an action proposed in a
 * conversation is also appended to that conversation's ledger ({@code conversation_events}), in the same statement:
 * agent-service reads it from there for the next turn, on any replica, after any restart.
 */
@ApplicationScoped
public class OutboxWriter {

    /**
     * The outbox rows and, for those with a user and a conversation, the conversation ledger's, appended in the order
     * given by {@code append_outcome} (R__execute_action.sql), one call per outcome: arrays of the event ids, tenants,
     * topics, keys, payloads, users and conversations or nulls, event types and times.
     */
    private static final String APPEND = "SELECT append_outcome(o.e, o.t, o.topic, o.k, o.payload, o.u, o.c, o.type,"
            + " o.at) FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],"
            + " $8::text[], $9::timestamptz[]) WITH ORDINALITY AS o(e, t, topic, k, payload, u, c, type, at, i)"
            + " ORDER BY o.i";

    private final TenantTransactions transactions;
    private final OutcomeMetrics metrics;

    public OutboxWriter(TenantTransactions transactions, OutcomeMetrics metrics) {
        this.transactions = transactions;
        this.metrics = metrics;
    }

    /** Appends an outcome that stored no action (a rejected proposal). */
    public Uni<Void> append(SqlClient sql, ActionOutcome event) {
        return append(sql, event, null);
    }

    /**
     * Appends the outcome {@code event} announcing the move of {@code row}, and counts it once the transaction commits
     * ({@link OutcomeMetrics}).
     */
    public Uni<Void> append(SqlClient sql, ActionOutcome event, ActionRow row) {
        return append(sql, List.of(event), Collections.singletonList(row));
    }

    /**
     * Appends the outcomes {@code events}, each announcing the move of the row at the same index of {@code rows} (null
     * for an outcome that stored no action), in one statement and in that order; each is counted once the transaction
     * commits.
     */
    public Uni<Void> append(SqlClient sql, List<? extends ActionOutcome> events, List<ActionRow> rows) {
        if (events.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        List<AppendedOutcome> appended = events.stream().map(AppendedOutcome::of).toList();
        List<ActionOutcome> outcomes = List.copyOf(events);
        return sql.preparedQuery(APPEND)
                .execute(Tuple.from(new Object[]{
                        column(outcomes, ActionOutcome::eventId, UUID[]::new),
                        column(outcomes, ActionOutcome::tenantId, String[]::new),
                        column(appended, AppendedOutcome::topic, String[]::new),
                        column(outcomes, event -> event.actionId().toString(), String[]::new),
                        column(appended, AppendedOutcome::payload, String[]::new),
                        ledgerColumn(outcomes, appended, ActionOutcome::userId),
                        ledgerColumn(outcomes, appended, ActionOutcome::conversationId),
                        column(appended, AppendedOutcome::type, String[]::new),
                        column(outcomes, event -> event.occurredAt().atOffset(ZoneOffset.UTC),
                                OffsetDateTime[]::new)}))
                .invoke(() -> {
                    for (int i = 0; i < outcomes.size(); i++) {
                        countOnCommit(sql, outcomes.get(i), rows.get(i));
                    }
                })
                .replaceWithVoid();
    }

    /** {@code value} of each outcome that goes to its conversation's ledger, null for the others. */
    private static String[] ledgerColumn(List<ActionOutcome> outcomes, List<AppendedOutcome> appended,
            Function<ActionOutcome, String> value) {
        String[] column = new String[outcomes.size()];
        for (int i = 0; i < column.length; i++) {
            column[i] = appended.get(i).toLedger() ? value.apply(outcomes.get(i)) : null;
        }
        return column;
    }

    /** Counts the outcome {@code event} of {@code row} once the transaction of {@code sql} commits. */
    public void countOnCommit(SqlClient sql, ActionOutcome event, ActionRow row) {
        transactions.afterCommit(sql, () -> metrics.count(event, row));
    }
}
