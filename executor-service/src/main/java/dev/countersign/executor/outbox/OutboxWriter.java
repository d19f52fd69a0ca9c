package dev.countersign.executor.outbox;

import java.time.ZoneOffset;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.contracts.json.Json;
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
     * The outbox row and the conversation ledger's ($1 event id, $2 tenant, $3 topic, $4 key, $5 payload, $6 user and
     * $7 conversation or nulls, $8 event type, $9 when); public for the confirm benchmark's baseline.
     */
    public static final String APPEND = """
            WITH ledger AS (
                INSERT INTO conversation_events (event_id, tenant_id, user_id, conversation_id, type,
                                                 occurred_at, payload)
                SELECT $1, $2, $6, $7, $8, $9, $5::text::jsonb WHERE $6::text IS NOT NULL AND $7::text IS NOT NULL
                ON CONFLICT (event_id) DO NOTHING)
            INSERT INTO outbox (event_id, tenant_id, topic, message_key, payload) VALUES ($1, $2, $3, $4, $5)""";

    /**
     * The outbox row alone, for an outcome the ledger cannot hold. Not {@link #APPEND} with nulls: PostgreSQL folds the
     * {@code $5::text::jsonb} cast of a custom plan's parameters while planning, before the WHERE says the row is not
     * wanted, so a payload jsonb refuses would fail the statement (it did on each connection's first five runs, before
     * the prepared statement's generic plan).
     */
    private static final String APPEND_OUTBOX_ONLY = """
            INSERT INTO outbox (event_id, tenant_id, topic, message_key, payload) VALUES ($1, $2, $3, $4, $5)""";

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
        String payload = Json.write(event);
        // PostgreSQL stores no NUL in text or jsonb: such an outcome (of a proposal rejected for it) reaches the
        // topic only, never the ledger, so its transaction still commits.
        boolean toLedger = Identifiers.isPrintableId(event.userId())
                && Identifiers.isPrintableId(event.conversationId()) && !payload.contains("\\u0000");
        String key = event.actionId().toString();
        Uni<?> appended = toLedger
                ? sql.preparedQuery(APPEND).execute(Tuple.from(new Object[]{event.eventId(), event.tenantId(),
                        Topics.ACTIONS_OUTCOMES, key, payload, event.userId(), event.conversationId(),
                        event.getClass().getSimpleName(), event.occurredAt().atOffset(ZoneOffset.UTC)}))
                : sql.preparedQuery(APPEND_OUTBOX_ONLY).execute(Tuple.of(event.eventId(), event.tenantId(),
                        Topics.ACTIONS_OUTCOMES, key, payload));
        return appended
                .invoke(() -> transactions.afterCommit(sql, () -> metrics.count(event, row)))
                .replaceWithVoid();
    }
}
