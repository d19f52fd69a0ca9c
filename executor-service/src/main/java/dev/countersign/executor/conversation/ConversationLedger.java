package dev.countersign.executor.conversation;

import java.time.ZoneOffset;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.api.ChatRequest;
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.executor.action.TenantTransactions;
import dev.countersign.executor.action.TenantTransactions.Actor;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Appends conversation events to {@code conversation_events}, once per event id (a redelivered event is a no-op), in
 * the event's tenant under row-level security. The table is append-only for this service: it has no UPDATE or DELETE
 * privilege on it.
 */
@ApplicationScoped
public class ConversationLedger {

    private final TenantTransactions transactions;

    public ConversationLedger(TenantTransactions transactions) {
        this.transactions = transactions;
    }

    /** Why the event cannot be appended, or null. */
    static String envelopeProblem(TurnRecorded turn) {
        if (!Identifiers.isPrintableId(turn.tenantId()) || !Identifiers.isPrintableId(turn.userId())) {
            return "tenantId and userId must be 1 to 128 printable characters";
        }
        if (!Identifiers.isConversationId(turn.conversationId())) {
            return "conversationId must be 1 to 64 letters, digits, '-' or '_'";
        }
        if (turn.schemaVersion() != TurnRecorded.SCHEMA_VERSION) {
            return "schemaVersion %d is not %d".formatted(turn.schemaVersion(), TurnRecorded.SCHEMA_VERSION);
        }
        if (!ChatRequest.ACT.equals(turn.mode()) && !ChatRequest.PLAN.equals(turn.mode())) {
            return "mode must be act or plan";
        }
        return null;
    }

    /** True if this delivery appended the event, false if it was already there. */
    public Uni<Boolean> append(TurnRecorded turn, String payload) {
        Actor agent = new Actor(turn.tenantId(), turn.userId(), TenantTransactions.AGENT);
        return transactions.run(agent, sql -> sql.preparedQuery("""
                INSERT INTO conversation_events (event_id, tenant_id, user_id, conversation_id, turn_id, type,
                                                 occurred_at, payload)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb)
                ON CONFLICT (event_id) DO NOTHING""")
                .execute(Tuple.from(new Object[]{turn.eventId(), turn.tenantId(), turn.userId(),
                        turn.conversationId(), turn.turnId(), TurnRecorded.TYPE,
                        turn.occurredAt().atOffset(ZoneOffset.UTC), payload}))
                .map(rows -> rows.rowCount() == 1));
    }
}
