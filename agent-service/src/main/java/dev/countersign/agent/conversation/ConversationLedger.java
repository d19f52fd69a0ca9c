package dev.countersign.agent.conversation;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.ledger.TenantReads;
import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.contracts.events.PlanEvent;
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.json.Json;
import dev.countersign.contracts.json.MalformedEventException;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Reads the conversation ledger that executor-service appends to (table {@code conversation_events}: the turns agent
 * replicas publish, and the outcomes of the actions they proposed), through the read-only role and the tenant's
 * row-level security. Any replica reads the same history: nothing of a conversation is kept in this process.
 */
@ApplicationScoped
public class ConversationLedger {

    private static final Logger LOG = Logger.getLogger(ConversationLedger.class);

    /** Ledger types that are not action outcomes: the turns and plan deliverables the agent records. */
    private static final String[] NOT_OUTCOMES = java.util.stream.Stream
            .concat(java.util.stream.Stream.of(TurnRecorded.TYPE), PlanEvent.TYPES.stream()).toArray(String[]::new);

    private final TenantReads reads;

    public ConversationLedger(TenantReads reads) {
        this.reads = reads;
    }

    /** The newest {@code max} turns of the conversation, oldest first. */
    public List<TurnRecorded> turns(ConversationKey conversation, int max) {
        List<TurnRecorded> newestFirst = reads.list(conversation.person(), """
                SELECT payload::text AS payload FROM conversation_events
                WHERE tenant_id = $1 AND user_id = $2 AND conversation_id = $3 AND type = $4
                ORDER BY position DESC
                LIMIT $5""",
                Tuple.of(conversation.tenantId(), conversation.userId(), conversation.conversationId(),
                        TurnRecorded.TYPE, max),
                row -> readable(row.getString("payload")));
        List<TurnRecorded> oldestFirst = new java.util.ArrayList<>(newestFirst);
        oldestFirst.removeIf(java.util.Objects::isNull);
        Collections.reverse(oldestFirst);
        return oldestFirst;
    }

    /**
     * The latest outcome of each action proposed in the conversation, newest first, at most {@code max} actions. The
     * executor appends them in the transaction that changes the action, so one action's outcomes are in order.
     */
    public List<ActionOutcome> outcomes(ConversationKey conversation, int max) {
        List<String> payloads = reads.list(conversation.person(), """
                SELECT payload FROM (
                    SELECT DISTINCT ON (payload ->> 'actionId') payload::text AS payload, position
                    FROM conversation_events
                    WHERE tenant_id = $1 AND user_id = $2 AND conversation_id = $3 AND type <> ALL($4)
                    ORDER BY payload ->> 'actionId', position DESC) latest
                ORDER BY position DESC
                LIMIT $5""",
                Tuple.of(conversation.tenantId(), conversation.userId(), conversation.conversationId(),
                        NOT_OUTCOMES, max),
                row -> row.getString("payload"));
        List<ActionOutcome> outcomes = new java.util.ArrayList<>();
        for (String payload : payloads) {
            try {
                outcomes.add(Json.read(payload, ActionOutcome.class));
            } catch (MalformedEventException e) {
                LOG.warnf("Skipped an outcome this version cannot read: %s", e.getMessage());
            }
        }
        return outcomes;
    }

    /** The deliverable recorded for a plan turn of the caller's conversation, if any (and readable). */
    public Optional<PlanEvent> planOf(ConversationKey conversation, UUID turnId) {
        List<String> payloads = reads.list(conversation.person(), """
                SELECT payload::text AS payload FROM conversation_events
                WHERE tenant_id = $1 AND user_id = $2 AND conversation_id = $3 AND turn_id = $4 AND type = ANY($5)
                ORDER BY position LIMIT 1""",
                Tuple.of(conversation.tenantId(), conversation.userId(), conversation.conversationId(), turnId,
                        PlanEvent.TYPES.toArray(String[]::new)),
                row -> row.getString("payload"));
        try {
            return payloads.stream().findFirst().map(payload -> Json.read(payload, PlanEvent.class));
        } catch (MalformedEventException e) {
            LOG.warnf("A plan deliverable this version cannot read: %s", e.getMessage());
            return Optional.empty();
        }
    }

    /** A recorded turn, or null (logged) if this version cannot read it: one bad row must not end a conversation. */
    private static TurnRecorded readable(String payload) {
        try {
            return Json.read(payload, TurnRecorded.class);
        } catch (MalformedEventException e) {
            LOG.warnf("Skipped a recorded turn this version cannot read: %s", e.getMessage());
            return null;
        }
    }

    /** When the newest of these events of the user happened, if any of them is in the ledger. */
    public Optional<Instant> latestOf(String tenantId, String userId, List<UUID> eventIds) {
        return reads.list(new Person(tenantId, userId), """
                SELECT max(occurred_at) AS latest FROM conversation_events
                WHERE tenant_id = $1 AND user_id = $2 AND event_id = ANY($3)""",
                Tuple.of(tenantId, userId, eventIds.toArray(UUID[]::new)),
                row -> Optional.ofNullable(row.getOffsetDateTime("latest")).map(OffsetDateTime::toInstant))
                .get(0);
    }

    /** Whether the event is in the person's ledger (the database shows the agent no other person's events). */
    public boolean contains(Person person, UUID eventId) {
        return !reads
                .list(person, "SELECT 1 AS found FROM conversation_events WHERE tenant_id = $1 AND event_id = $2",
                        Tuple.of(person.tenantId(), eventId), row -> true)
                .isEmpty();
    }
}
