package dev.countersign.executor.conversation;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.core.JsonProcessingException;

import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.api.ChatRequest;
import dev.countersign.contracts.events.PlanEvent;
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
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

    /** Whether the payload is a plan deliverable (its {@code type} member names one); a turn has no {@code type}. */
    static boolean isPlanEvent(String payload) {
        try {
            return PlanEvent.TYPES.contains(Json.mapper().readTree(payload).path("type").asText());
        } catch (JsonProcessingException | RuntimeException e) {
            return false;
        }
    }

    /** Why the plan event cannot be appended, or null. */
    static String envelopeProblem(PlanEvent plan) {
        if (!Identifiers.isPrintableId(plan.tenantId()) || !Identifiers.isPrintableId(plan.userId())) {
            return "tenantId and userId must be 1 to 128 printable characters";
        }
        if (!Identifiers.isConversationId(plan.conversationId())) {
            return "conversationId must be 1 to 64 letters, digits, '-' or '_'";
        }
        if (plan.schemaVersion() != PlanEvent.SCHEMA_VERSION) {
            return "schemaVersion %d is not %d".formatted(plan.schemaVersion(), PlanEvent.SCHEMA_VERSION);
        }
        return null;
    }

    /** True if this delivery appended the plan event, false if it was already there. */
    public Uni<Boolean> append(PlanEvent plan, String payload) {
        String type = PlanEvent.TYPES.stream().filter(t -> t.equals(plan.getClass().getSimpleName())).findFirst()
                .orElseThrow();
        return append(plan.eventId(), plan.tenantId(), plan.userId(), plan.conversationId(), plan.turnId(), type,
                plan.occurredAt(), payload);
    }

    /** True if this delivery appended the event, false if it was already there. */
    public Uni<Boolean> append(TurnRecorded turn, String payload) {
        return append(turn.eventId(), turn.tenantId(), turn.userId(), turn.conversationId(), turn.turnId(),
                TurnRecorded.TYPE, turn.occurredAt(), payload);
    }

    private Uni<Boolean> append(UUID eventId, String tenantId, String userId, String conversationId, UUID turnId,
            String type, Instant occurredAt, String payload) {
        Actor agent = new Actor(tenantId, userId, TenantTransactions.AGENT);
        return transactions.run(agent, sql -> sql.preparedQuery("""
                INSERT INTO conversation_events (event_id, tenant_id, user_id, conversation_id, turn_id, type,
                                                 occurred_at, payload)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb)
                ON CONFLICT (event_id) DO NOTHING""")
                .execute(Tuple.from(new Object[]{eventId, tenantId, userId, conversationId, turnId, type,
                        occurredAt.atOffset(ZoneOffset.UTC), payload}))
                .map(rows -> rows.rowCount() == 1));
    }
}
