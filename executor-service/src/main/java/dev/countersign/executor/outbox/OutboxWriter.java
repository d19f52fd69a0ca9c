package dev.countersign.executor.outbox;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

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
    /** {@link #APPEND} for many outcomes in one statement, appended in the order given (arrays in that order). */
    private static final String APPEND_ALL = "SELECT append_outcome(o.e, o.t, o.topic, o.k, o.payload, o.u, o.c,"
            + " o.type, o.at) FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],"
            + " $7::text[], $8::text[], $9::timestamptz[]) WITH ORDINALITY AS o(e, t, topic, k, payload, u, c, type, at,"
            + " i) ORDER BY o.i";

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

    /**
     * Appends the outcomes {@code events}, each announcing the move of the row at the same index of {@code rows}, in
     * one statement and in that order; each is counted once the transaction commits.
     */
    public Uni<Void> append(SqlClient sql, List<? extends ActionOutcome> events, List<ActionRow> rows) {
        if (events.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        int n = events.size();
        UUID[] ids = new UUID[n];
        OffsetDateTime[] at = new OffsetDateTime[n];
        String[][] text = new String[7][n];
        for (int i = 0; i < n; i++) {
            ActionOutcome event = events.get(i);
            AppendedOutcome appended = AppendedOutcome.of(event);
            ids[i] = event.eventId();
            at[i] = event.occurredAt().atOffset(ZoneOffset.UTC);
            String[] row = {event.tenantId(), appended.topic(), event.actionId().toString(), appended.payload(),
                    appended.toLedger() ? event.userId() : null, appended.toLedger() ? event.conversationId() : null,
                    appended.type()};
            for (int column = 0; column < row.length; column++) {
                text[column][i] = row[column];
            }
        }
        return sql.preparedQuery(APPEND_ALL)
                .execute(Tuple.from(new Object[]{ids, text[0], text[1], text[2], text[3], text[4], text[5], text[6],
                        at}))
                .invoke(() -> {
                    for (int i = 0; i < n; i++) {
                        countOnCommit(sql, events.get(i), rows.get(i));
                    }
                })
                .replaceWithVoid();
    }

    /** Counts the outcome {@code event} of {@code row} once the transaction of {@code sql} commits. */
    public void countOnCommit(SqlClient sql, ActionOutcome event, ActionRow row) {
        transactions.afterCommit(sql, () -> metrics.count(event, row));
    }
}
