package dev.countersign.localstack;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/** The local-stack tests' one way into a running stack around its services: a count in SQL, a raw Kafka producer. */
final class StackAccess {

    private StackAccess() {
    }

    /** The first column of {@code sql} (one {@code ?}, the tenant) as a number, read as the schema owner. */
    static long count(LocalStack stack, String sql, String tenant) throws SQLException {
        try (Connection owner = stack.ownerConnection(); var query = owner.prepareStatement(sql)) {
            query.setString(1, tenant);
            try (var rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    /** A producer configured like the services' (acks=all), for records sent as the agent or an integration would. */
    static KafkaProducer<String, String> producer(String bootstrapServers) {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 2), new StringSerializer(), new StringSerializer());
    }
}
