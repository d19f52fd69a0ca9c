package dev.countersign.agent;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

import dev.countersign.contracts.Topics;
import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.contracts.events.PlanEvent;
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.TestProperties;

/**
 * Plays executor-service's one part the agent's tests need: appending published turns (and plan deliverables), and the
 * outcomes of actions proposed in a conversation, to the conversation ledger, so these tests run in one JVM against the
 * real broker and database. The executor's own writers are tested in executor-service, and both services together (two
 * agent replicas) in deploy/local-stack.
 */
final class ConversationAppender {

    private static Thread thread;

    private ConversationAppender() {
    }

    static synchronized void start() {
        if (thread != null) {
            return;
        }
        thread = new Thread(ConversationAppender::run, "conversation-appender");
        thread.setDaemon(true);
        thread.start();
    }

    private static void append(PreparedStatement insert, UUID eventId, String tenantId, String userId,
            String conversationId, UUID turnId, String type, String payload) throws java.sql.SQLException {
        insert.setString(1, eventId.toString());
        insert.setString(2, tenantId);
        insert.setString(3, userId);
        insert.setString(4, conversationId);
        insert.setString(5, turnId == null ? null : turnId.toString());
        insert.setString(6, type);
        insert.setString(7, payload);
        insert.executeUpdate();
    }

    /** Waits until an event with this id, or an outcome of the action with this id, is in the ledger. */
    static void awaitAppended(String id) {
        dev.countersign.devsupport.testing.Waits.await().atMost(Duration.ofSeconds(15)).until(() -> {
            try (Connection owner = TestProperties.ownerConnection();
                    PreparedStatement query = owner.prepareStatement(
                            "SELECT 1 FROM conversation_events WHERE event_id::text = ? OR payload ->> 'actionId' = ?")) {
                query.setString(1, id);
                query.setString(2, id);
                return query.executeQuery().next();
            }
        });
    }

    private static void run() {
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestProperties.require(TestProperties.BOOTSTRAP_SERVERS),
                ConsumerConfig.GROUP_ID_CONFIG, "agent-test-appender-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(),
                new StringDeserializer());
                Connection owner = TestProperties.ownerConnection();
                PreparedStatement insert = owner.prepareStatement("""
                        INSERT INTO conversation_events (event_id, tenant_id, user_id, conversation_id, turn_id,
                                                         type, occurred_at, payload)
                        VALUES (?::uuid, ?, ?, ?, ?::uuid, ?, now(), ?::jsonb) ON CONFLICT (event_id) DO NOTHING""")) {
            consumer.subscribe(List.of(Topics.CONVERSATION_EVENTS, Topics.ACTIONS_OUTCOMES));
            while (true) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                    String type = Json.mapper().readTree(record.value()).path("type").asText();
                    if (record.topic().equals(Topics.CONVERSATION_EVENTS) && PlanEvent.TYPES.contains(type)) {
                        PlanEvent plan = Json.read(record.value(), PlanEvent.class);
                        append(insert, plan.eventId(), plan.tenantId(), plan.userId(), plan.conversationId(),
                                plan.turnId(), type, record.value());
                    } else if (record.topic().equals(Topics.CONVERSATION_EVENTS)) {
                        TurnRecorded turn = Json.read(record.value(), TurnRecorded.class);
                        append(insert, turn.eventId(), turn.tenantId(), turn.userId(), turn.conversationId(),
                                turn.turnId(), TurnRecorded.TYPE, record.value());
                    } else {
                        ActionOutcome outcome = Json.read(record.value(), ActionOutcome.class);
                        if (outcome.userId() != null && outcome.conversationId() != null) {
                            append(insert, outcome.eventId(), outcome.tenantId(), outcome.userId(),
                                    outcome.conversationId(), null, outcome.getClass().getSimpleName(),
                                    record.value());
                        }
                    }
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("The test's conversation appender stopped", e);
        }
    }
}
