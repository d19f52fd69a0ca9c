package dev.countersign.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.FieldSource;

import dev.countersign.contracts.Topics;

/**
 * Every topic the services use is declared, with partitions and retention; the one carrying raw tokens is short-lived.
 */
@ParameterizedClass(name = "overlay {0}")
@FieldSource("dev.countersign.k8s.Manifests#OVERLAYS")
class KafkaTopicsTest {

    /** A decision window is at most ACTIONS_MAX_TTL (15 min); a token need not outlive it by much. */
    private static final long DECISIONS_MAX_RETENTION_MS = 3_600_000L;

    private final Manifests manifests;

    KafkaTopicsTest(String overlay) {
        this.manifests = Manifests.of(overlay);
    }

    @Test
    void everyTopicOfTheContractsAndOfBothServicesConfigurationIsDeclared() throws Exception {
        Set<String> used = new TreeSet<>();
        for (Field field : Topics.class.getDeclaredFields()) {
            // TENANT_PREFIX begins the per-tenant topics, declared per tenant (their names: KafkaAclTest).
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class
                    && !field.getName().endsWith("_PREFIX")) {
                used.add((String) field.get(null));
            }
        }
        for (String service : new String[]{"executor-service", "agent-service"}) {
            Properties properties = new Properties();
            try (var in = Files.newBufferedReader(
                    Manifests.repoRoot().resolve(service + "/src/main/resources/application.properties"))) {
                properties.load(in);
            }
            properties.stringPropertyNames().stream().filter(k -> k.startsWith("mp.messaging.")
                    && (k.endsWith(".topic") || k.endsWith(".dead-letter-queue.topic")))
                    .forEach(k -> used.add(properties.getProperty(k)));
        }
        assertThat(declared().keySet()).containsAll(used);
    }

    @Test
    void everyTopicHasPartitionsReplicasAndRetention() {
        declared().forEach((topic, spec) -> {
            assertThat(Integer.parseInt(Node.str(spec, "partitions"))).as(topic + " partitions").isPositive();
            assertThat(Integer.parseInt(Node.str(spec, "replicas"))).as(topic + " replicas").isPositive();
            assertThat(Long.parseLong(Node.str(spec, "config", "retention.ms"))).as(topic + " retention.ms")
                    .isPositive();
            assertThat(Node.str(spec, "config", "cleanup.policy")).as(topic + " cleanup.policy").isEqualTo("delete");
        });
    }

    @Test
    void theDecisionsTopicKeepsItsOneTimeTokensForAnHourAtMost() {
        Map<String, Object> decisions = declared().get(Topics.ACTIONS_DECISIONS);
        long retention = Long.parseLong(Node.str(decisions, "config", "retention.ms"));
        assertThat(retention).isPositive().isLessThanOrEqualTo(DECISIONS_MAX_RETENTION_MS);
        // Retention deletes closed segments only: without a short segment.ms (default 7 days) tokens stay far longer.
        assertThat(Node.str(decisions, "config", "segment.ms")).as("segment.ms").isNotNull();
        assertThat(Long.parseLong(Node.str(decisions, "config", "segment.ms"))).isLessThanOrEqualTo(retention);
        assertThat(Node.str(decisions, "config", "retention.bytes")).as("no size-based override").isNull();
    }

    @Test
    void theAgentsTopicsAreStampedByTheBrokerSoEvidenceIsJudgedAtAnAppendTimeNoProducerChooses() {
        for (String topic : new String[]{Topics.ACTIONS_PROPOSED, Topics.CONVERSATION_EVENTS}) {
            assertThat(Node.str(declared().get(topic), "config", "message.timestamp.type")).as(topic)
                    .isEqualTo("LogAppendTime");
        }
    }

    @Test
    void theAgentsTopicsKeepTheirEvidenceTokensNoLongerThanTheExecutorAcceptsThem() {
        // The executor refuses evidence that queued longer than a day (EVIDENCE_MAX_QUEUE_TIME, P1D): older records
        // only keep tokens on disk. Retention deletes closed segments only, so segments must roll within it.
        for (String topic : new String[]{Topics.ACTIONS_PROPOSED, Topics.CONVERSATION_EVENTS}) {
            long retention = Long.parseLong(Node.str(declared().get(topic), "config", "retention.ms"));
            assertThat(retention).as(topic + " retention.ms").isPositive().isLessThanOrEqualTo(86_400_000L);
            assertThat(Node.str(declared().get(topic), "config", "segment.ms")).as(topic + " segment.ms").isNotNull();
            assertThat(Long.parseLong(Node.str(declared().get(topic), "config", "segment.ms"))).as(topic)
                    .isLessThanOrEqualTo(retention);
        }
    }

    @Test
    void topicsAreNeverCreatedByAClient() {
        assertThat(Node.str(manifests.get("Kafka", "countersign-kafka"), "spec", "kafka", "config",
                "auto.create.topics.enable"))
                .isEqualTo("false");
    }

    @Test
    void executorReplicasNeverOutnumberThePartitionsTheyConsume() {
        int maxReplicas = Integer.parseInt(
                Node.str(manifests.get("HorizontalPodAutoscaler", "executor-service"), "spec", "maxReplicas"));
        for (String topic : new String[]{Topics.ACTIONS_PROPOSED, Topics.ACTIONS_DECISIONS,
                Topics.CONVERSATION_EVENTS}) {
            assertThat(Integer.parseInt(Node.str(declared().get(topic), "partitions"))).as(topic + " partitions")
                    .isGreaterThanOrEqualTo(maxReplicas);
        }
    }

    private Map<String, Map<String, Object>> declared() {
        Map<String, Map<String, Object>> topics = new java.util.TreeMap<>();
        for (Map<String, Object> topic : manifests.ofKind("KafkaTopic")) {
            assertThat(Node.str(topic, "metadata", "labels", "strimzi.io/cluster")).isEqualTo("countersign-kafka");
            topics.put(Node.str(topic, "spec", "topicName"), Node.map(topic, "spec"));
        }
        return topics;
    }
}
