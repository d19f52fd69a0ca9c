package dev.countersign.devsupport.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** A plain Kafka client for tests: send raw records and read a topic from its beginning. */
public final class KafkaTestClient {

    private final String bootstrapServers;

    public KafkaTestClient(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    public static KafkaTestClient fromTestProperties() {
        return new KafkaTestClient(TestProperties.require(TestProperties.BOOTSTRAP_SERVERS));
    }

    public void send(String topic, String key, String value) {
        send(topic, key, value, Map.of());
    }

    /** Like {@link #send(String, String, String)}, with record headers (e.g. a W3C {@code traceparent}). */
    public void send(String topic, String key, String value, Map<String, String> headers) {
        send(topic, key, value, headers, null);
    }

    /** Like {@link #send(String, String, String, Map)}, with a producer-chosen timestamp (null: the producer's now). */
    public void send(String topic, String key, String value, Map<String, String> headers, Instant timestamp) {
        try (var producer = new KafkaProducer<String, String>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer())) {
            var record = new ProducerRecord<>(topic, null, timestamp == null ? null : timestamp.toEpochMilli(), key,
                    value);
            headers.forEach((name, header) -> record.headers().add(name, header.getBytes(StandardCharsets.UTF_8)));
            producer.send(record).get();
        } catch (Exception e) {
            throw new IllegalStateException("Could not send to " + topic, e);
        }
    }

    /**
     * Sends all {@code records} through one producer and waits until the broker has acknowledged each: for a test that
     * sends thousands (a producer per record pays a connection and a metadata round trip each time).
     */
    public void sendAll(List<ProducerRecord<String, String>> records) {
        try (var producer = new KafkaProducer<String, String>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(), new StringSerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>(records.size());
            for (ProducerRecord<String, String> record : records) {
                sent.add(producer.send(record));
            }
            for (var future : sent) {
                future.get();
            }
        } catch (Exception e) {
            throw new IllegalStateException("Could not send " + records.size() + " records", e);
        }
    }

    /**
     * Reads {@code topic} from the beginning until {@code stop} holds for the records matching {@code filter}, or the
     * timeout passes; returns the matching records' values in order.
     */
    public List<String> read(String topic, Predicate<String> filter, Predicate<List<String>> stop, Duration timeout) {
        List<String> values = new ArrayList<>();
        records(topic, record -> filter.test(record.value()), found -> {
            values.clear();
            found.forEach(record -> values.add(record.value()));
            return stop.test(values);
        }, timeout);
        return values;
    }

    /**
     * Like {@link #awaitAny}, but whole records (headers included) whose value passes {@code filter}, waiting up to 15
     * s for the first.
     */
    public List<ConsumerRecord<String, String>> awaitRecords(String topic, Predicate<String> filter) {
        return records(topic, record -> filter.test(record.value()), found -> !found.isEmpty(),
                Duration.ofSeconds(15));
    }

    /**
     * The whole records of {@code topic} whose key is {@code key}, tombstones and empty values included (a value filter
     * cannot find those), waiting up to {@code timeout} for the first.
     */
    public List<ConsumerRecord<String, String>> awaitKey(String topic, String key, Duration timeout) {
        return records(topic, record -> key.equals(record.key()), found -> !found.isEmpty(), timeout);
    }

    /**
     * The records of {@code topic} from its start that pass {@code filter}, until {@code stop} holds or the timeout.
     */
    private List<ConsumerRecord<String, String>> records(String topic,
            Predicate<ConsumerRecord<String, String>> filter, Predicate<List<ConsumerRecord<String, String>>> stop,
            Duration timeout) {
        List<ConsumerRecord<String, String>> matching = new ArrayList<>();
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, "test-reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            Instant deadline = Instant.now().plus(timeout);
            while (Instant.now().isBefore(deadline) && !stop.test(matching)) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    if (filter.test(record)) {
                        matching.add(record);
                    }
                }
            }
        }
        return matching;
    }

    /** The value of header {@code name} of {@code record} as text, or null when absent. */
    public static String header(ConsumerRecord<?, ?> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** The records of {@code topic} that pass {@code filter}, waiting up to 15 s for the first. */
    public List<String> awaitAny(String topic, Predicate<String> filter) {
        return read(topic, filter, found -> !found.isEmpty(), Duration.ofSeconds(15));
    }

    /** Reads for the whole of {@code window}: for asserting that something was published exactly once. */
    public List<String> readFor(String topic, Predicate<String> filter, Duration window) {
        return read(topic, filter, records -> false, window);
    }
}
