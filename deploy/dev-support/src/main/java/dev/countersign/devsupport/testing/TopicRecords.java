package dev.countersign.devsupport.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;

/**
 * Records of a topic for tests, through SmallRye's {@link KafkaCompanion}: send them and return once the broker has
 * acknowledged each ({@code acks=all}), or read a topic from its beginning for the records that pass a filter, until
 * enough are found or a timeout passes. The companion does the producing and the consuming; this class names the few
 * ways about a hundred tests use it, so that none repeats the companion's chain of calls.
 * <p>
 * Every call opens a companion of its own and closes it before returning, on a failure too, so nothing it opened is
 * left to the next test or to an assertion that fails on its result (the companion ends a consumer on the consumer's
 * own thread, just after the read returns). Each read has a consumer group of its own, so it starts from the beginning
 * of the topic whatever was read before, and it looks at what it has found every {@link Waits#POLL_INTERVAL}. A read
 * whose consumer failed throws. Limits: a read keeps the matching records in memory, and a value filter never matches a
 * record without a value (a tombstone: {@link #awaitKey} finds those).
 */
public final class TopicRecords {

    /** How long {@link #awaitAny} and {@link #awaitRecords} wait for the first matching record. */
    private static final Duration FIRST_RECORD_WITHIN = Duration.ofSeconds(15);

    /**
     * Longer than the producer's own limits (a minute blocked waiting for metadata, two to deliver), so a send that
     * cannot be acknowledged fails with the producer's reason rather than the wait's.
     */
    private static final Duration ACKNOWLEDGED_WITHIN = Duration.ofMinutes(3);

    private final String bootstrapServers;

    public TopicRecords(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    /** The records of the broker {@link TestInfrastructure} started for this test JVM. */
    public static TopicRecords fromTestProperties() {
        return new TopicRecords(TestProperties.require(TestProperties.BOOTSTRAP_SERVERS));
    }

    /** Sends one record and returns once the broker has acknowledged it ({@code acks=all}). */
    public void send(String topic, String key, String value) {
        send(topic, key, value, Map.of());
    }

    /** Like {@link #send(String, String, String)}, with record headers (e.g. a W3C {@code traceparent}). */
    public void send(String topic, String key, String value, Map<String, String> headers) {
        send(topic, key, value, headers, null);
    }

    /** Like {@link #send(String, String, String, Map)}, with a producer-chosen timestamp (null: the producer's now). */
    public void send(String topic, String key, String value, Map<String, String> headers, Instant timestamp) {
        List<Header> recordHeaders = headers.entrySet().stream()
                .<Header>map(header -> new RecordHeader(header.getKey(),
                        header.getValue().getBytes(StandardCharsets.UTF_8)))
                .toList();
        produce(List.of(new ProducerRecord<>(topic, null, timestamp == null ? null : timestamp.toEpochMilli(), key,
                value, recordHeaders)), Map.of(ProducerConfig.ACKS_CONFIG, "all"));
    }

    /**
     * Sends all {@code records} through one producer, batched (5 ms linger), and returns once the broker has
     * acknowledged each: for a test that sends thousands.
     */
    public void sendAll(List<ProducerRecord<String, String>> records) {
        produce(records, Map.of(ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 5));
    }

    /**
     * Reads {@code topic} from the beginning until {@code stop} holds for the values passing {@code filter}, or the
     * timeout passes; returns those values in the order read (a timeout is not an error: the caller asserts on them).
     */
    public List<String> read(String topic, Predicate<String> filter, Predicate<List<String>> stop, Duration timeout) {
        return values(records(topic, valuePasses(filter), found -> stop.test(values(found)), timeout));
    }

    /** The values of {@code topic} that pass {@code filter}, waiting up to 15 s for the first. */
    public List<String> awaitAny(String topic, Predicate<String> filter) {
        return values(awaitRecords(topic, filter));
    }

    /** Reads for the whole of {@code window}: for asserting that something was published exactly once, or never. */
    public List<String> readFor(String topic, Predicate<String> filter, Duration window) {
        return values(records(topic, valuePasses(filter), found -> false, window));
    }

    /** Like {@link #awaitAny}, but whole records (headers included). */
    public List<ConsumerRecord<String, String>> awaitRecords(String topic, Predicate<String> filter) {
        return records(topic, valuePasses(filter), found -> !found.isEmpty(), FIRST_RECORD_WITHIN);
    }

    /**
     * The whole records of {@code topic} whose key is {@code key}, tombstones and empty values included (a value filter
     * cannot find those), waiting up to {@code timeout} for the first.
     */
    public List<ConsumerRecord<String, String>> awaitKey(String topic, String key, Duration timeout) {
        return records(topic, record -> key.equals(record.key()), found -> !found.isEmpty(), timeout);
    }

    private void produce(List<ProducerRecord<String, String>> records, Map<String, Object> producerProperties) {
        try (var companion = new KafkaCompanion(bootstrapServers);
                var sending = companion.produceStrings().withProps(producerProperties).fromRecords(records)) {
            sending.awaitCompletion(ACKNOWLEDGED_WITHIN);
        }
    }

    /**
     * The records of {@code topic}, from its beginning, that pass {@code filter}: those read once {@code stop} holds
     * for them, or those read when the timeout passes (not an error: the caller asserts on them).
     */
    private List<ConsumerRecord<String, String>> records(String topic,
            Predicate<ConsumerRecord<String, String>> filter, Predicate<List<ConsumerRecord<String, String>>> stop,
            Duration timeout) {
        // A failure of the consumer (a filter that throws, a record it cannot read) stays inside the companion's
        // subscriber; it is caught here, so a read that failed is never taken for one that found nothing.
        AtomicReference<Throwable> failed = new AtomicReference<>();
        try (var companion = new KafkaCompanion(bootstrapServers);
                var reading = companion.consumeStrings()
                        .withGroupId("test-reader-" + UUID.randomUUID())
                        .withProp(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")
                        .fromTopics(topic, records -> records.filter(filter).onFailure().invoke(failed::set))) {
            // Waits on the records found so far, not on a BooleanSupplier: the companion's waitFor over one (4.33.0)
            // repeats a void item, which Mutiny's repeat never sees, so its condition is never checked.
            List<ConsumerRecord<String, String>> found = KafkaCompanion
                    .waitFor(Uni.createFrom().item(reading::getRecords),
                            records -> failed.get() != null || stop.test(records), Waits.POLL_INTERVAL)
                    .ifNoItem().after(timeout).recoverWithItem(reading::getRecords)
                    .await().indefinitely();
            if (failed.get() != null) {
                throw new IllegalStateException("Reading " + topic + " failed", failed.get());
            }
            return List.copyOf(found);
        }
    }

    private static Predicate<ConsumerRecord<String, String>> valuePasses(Predicate<String> filter) {
        return record -> record.value() != null && filter.test(record.value());
    }

    private static List<String> values(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(ConsumerRecord::value).toList();
    }
}
