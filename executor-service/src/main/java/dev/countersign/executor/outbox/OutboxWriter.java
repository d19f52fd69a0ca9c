package dev.countersign.executor.outbox;

import java.time.ZoneOffset;

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
     * The outbox row and, when user and conversation are given, the conversation ledger's ($1 event id, $2 tenant, $3
     * topic, $4 key, $5 payload, $6 user and $7 conversation or nulls, $8 event type, $9 when): R__execute_action.sql.
     */
    private static final String APPEND = "SELECT append_outcome($1, $2, $3, $4, $5, $6, $7, $8, $9)";

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
        AppendedOutcome appended = AppendedOutcome.of(event);
        return sql.preparedQuery(APPEND)
                .execute(Tuple.from(new Object[]{event.eventId(), event.tenantId(), appended.topic(),
                        event.actionId().toString(), appended.payload(), appended.toLedger() ? event.userId() : null,
                        appended.toLedger() ? event.conversationId() : null, appended.type(),
                        event.occurredAt().atOffset(ZoneOffset.UTC)}))
                .invoke(() -> countOnCommit(sql, event, row))
                .replaceWithVoid();
    }

    /** Counts the outcome {@code event} of {@code row} once the transaction of {@code sql} commits. */
    public void countOnCommit(SqlClient sql, ActionOutcome event, ActionRow row) {
        transactions.afterCommit(sql, () -> metrics.count(event, row));
    }
}
