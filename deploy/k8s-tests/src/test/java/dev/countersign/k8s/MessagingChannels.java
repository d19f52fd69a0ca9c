package dev.countersign.k8s;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The Kafka topics a service reads (with its consumer group) and writes, as its {@code application.properties} declares
 * them in SmallRye Reactive Messaging's {@code mp.messaging.*} keys: what the service must be allowed to do. Only what
 * the file states: a channel without an explicit topic or group fails here rather than being guessed.
 */
record MessagingChannels(Map<String, String> groupByReadTopic, Set<String> writtenTopics) {

    private static final String INCOMING = "mp.messaging.incoming.";
    private static final String OUTGOING = "mp.messaging.outgoing.";

    static MessagingChannels of(String service) {
        Path file = Manifests.repoRoot().resolve(service).resolve("src/main/resources/application.properties");
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> groupByReadTopic = new TreeMap<>();
        Set<String> writtenTopics = new TreeSet<>();
        for (String channel : channels(properties, INCOMING)) {
            String prefix = INCOMING + channel + ".";
            groupByReadTopic.put(required(properties, prefix + "topic"), required(properties, prefix + "group.id"));
            if ("dead-letter-queue".equals(properties.getProperty(prefix + "failure-strategy"))) {
                writtenTopics.add(required(properties, prefix + "dead-letter-queue.topic"));
            }
        }
        for (String channel : channels(properties, OUTGOING)) {
            writtenTopics.add(required(properties, OUTGOING + channel + ".topic"));
        }
        return new MessagingChannels(groupByReadTopic, writtenTopics);
    }

    /** Kafka channels only: the connector key names the channel. */
    private static Set<String> channels(Properties properties, String direction) {
        Set<String> channels = new TreeSet<>();
        for (String key : properties.stringPropertyNames()) {
            if (key.startsWith(direction) && key.endsWith(".connector")
                    && "smallrye-kafka".equals(properties.getProperty(key))) {
                channels.add(key.substring(direction.length(), key.length() - ".connector".length()));
            }
        }
        return channels;
    }

    private static String required(Properties properties, String key) {
        String value = properties.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("application.properties names no " + key);
        }
        return value;
    }
}
