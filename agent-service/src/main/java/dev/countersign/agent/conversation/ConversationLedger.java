package dev.countersign.agent.conversation;

import java.util.Collections;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.chat.ConversationKey;
import dev.countersign.agent.ledger.TenantReads;
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.json.Json;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Reads the conversation ledger that executor-service appends to (table {@code conversation_events}), through the
 * read-only role and the tenant's row-level security. Any replica reads the same history: nothing of a conversation is
 * kept in this process.
 */
@ApplicationScoped
public class ConversationLedger {

    private final TenantReads reads;

    public ConversationLedger(TenantReads reads) {
        this.reads = reads;
    }

    /** The newest {@code max} turns of the conversation, oldest first. */
    public List<TurnRecorded> turns(ConversationKey conversation, int max) {
        List<TurnRecorded> newestFirst = reads.list(conversation.tenantId(), """
                SELECT payload::text AS payload FROM conversation_events
                WHERE tenant_id = $1 AND user_id = $2 AND conversation_id = $3 AND type = $4
                ORDER BY position DESC
                LIMIT $5""",
                Tuple.of(conversation.tenantId(), conversation.userId(), conversation.conversationId(),
                        TurnRecorded.TYPE, max),
                row -> Json.read(row.getString("payload"), TurnRecorded.class));
        List<TurnRecorded> oldestFirst = new java.util.ArrayList<>(newestFirst);
        Collections.reverse(oldestFirst);
        return oldestFirst;
    }

    public boolean contains(String tenantId, UUID eventId) {
        return !reads
                .list(tenantId, "SELECT 1 AS found FROM conversation_events WHERE tenant_id = $1 AND event_id = $2",
                        Tuple.of(tenantId, eventId), row -> true)
                .isEmpty();
    }
}
