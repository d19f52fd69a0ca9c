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
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.TestProperties;

/**
 * Plays executor-service's one part the agent's tests need: appending published turns to the conversation ledger, so
 * these tests run in one JVM against the real broker and database. The executor's own consumer is tested in
 * executor-service, and both services together (two agent replicas) in deploy/local-stack.
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
            consumer.subscribe(List.of(Topics.CONVERSATION_EVENTS));
            while (true) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                    TurnRecorded turn = Json.read(record.value(), TurnRecorded.class);
                    insert.setString(1, turn.eventId().toString());
                    insert.setString(2, turn.tenantId());
                    insert.setString(3, turn.userId());
                    insert.setString(4, turn.conversationId());
                    insert.setString(5, turn.turnId().toString());
                    insert.setString(6, TurnRecorded.TYPE);
                    insert.setString(7, record.value());
                    insert.executeUpdate();
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("The test's conversation appender stopped", e);
        }
    }
}
