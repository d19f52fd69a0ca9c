package dev.countersign.localstack;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.Json;

/**
 * Waits for outcome events as an integration sees them: one consumer of {@code countersign.actions.outcomes} (a fresh
 * group, from the end of the topic) completes the future of each action whose event of the awaited type arrives.
 */
final class OutcomeWaiter implements AutoCloseable {

    private final Map<UUID, CompletableFuture<Void>> waiting = new ConcurrentHashMap<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread reader;

    private OutcomeWaiter(String bootstrapServers, String type) throws InterruptedException {
        AtomicBoolean assigned = new AtomicBoolean();
        reader = new Thread(() -> {
            try (var consumer = new KafkaConsumer<String, String>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                    ConsumerConfig.GROUP_ID_CONFIG, "bench-outcomes-" + UUID.randomUUID(),
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest"), new StringDeserializer(),
                    new StringDeserializer())) {
                consumer.subscribe(List.of(Topics.ACTIONS_OUTCOMES));
                while (!stop.get()) {
                    var records = consumer.poll(Duration.ofMillis(100));
                    if (!consumer.assignment().isEmpty()) {
                        assigned.set(true);
                    }
                    for (var record : records) {
                        if (record.key() != null && type.equals(typeOf(record.value()))) {
                            var future = waiting.remove(UUID.fromString(record.key()));
                            if (future != null) {
                                future.complete(null);
                            }
                        }
                    }
                }
            }
        }, "bench-outcome-waiter");
        reader.start();
        await().alias("the outcomes consumer got its partitions").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100)).untilTrue(assigned);
    }

    /** Starts reading; returns once the consumer has its partitions (events published after that are seen). */
    static OutcomeWaiter of(String bootstrapServers, String type) throws InterruptedException {
        return new OutcomeWaiter(bootstrapServers, type);
    }

    /** Completes when the awaited event of {@code actionId} arrives; call before causing it. */
    CompletableFuture<Void> awaitFor(UUID actionId) {
        return waiting.computeIfAbsent(actionId, id -> new CompletableFuture<>());
    }

    /** The {@code type} of an outcome event's JSON, or null if it has none or is not JSON. */
    static String typeOf(String value) {
        try {
            JsonNode type = Json.mapper().readTree(value).get("type");
            return type == null ? null : type.asText();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        reader.join();
    }
}
