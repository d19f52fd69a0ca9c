package dev.countersign.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Topics;

/**
 * The ACLs of the manifests' KafkaUsers, enforced by a real broker: real producers and consumers sign in with
 * SCRAM-SHA-512 as each user and are served or refused by Kafka's StandardAuthorizer. The ACLs are translated from the
 * rendered prod overlay ({@link KafkaUserAcls}), never copied here, so a change to kafka-users.yaml changes what this
 * test checks; what each service must be able to do comes from its application.properties ({@link MessagingChannels}).
 * A refusal is asserted as Kafka's authorization error for that topic or group, never as a timeout.
 * <p>
 * What this does not prove: that Strimzi's User Operator translates the KafkaUsers as {@link KafkaUserAcls} does (it
 * models the operator, it is not the operator); TLS (the listener here is SASL_PLAINTEXT, Strimzi's is SASL over TLS);
 * network policies (NetworkPolicyTest reads those); the services' own Kafka settings beyond their topics and groups.
 */
class KafkaAclBrokerTest {

    /**
     * The overlay whose ACLs the broker enforces; {@link #everyOverlayGrantsTheAclsThisTestEnforces} covers the rest.
     */
    private static final String OVERLAY = "prod";

    private static final String AGENT = "countersign-agent";
    private static final String EXECUTOR = "countersign-executor";
    /** acme's integration principal (one per tenant: kafka-users.yaml). */
    private static final String INTEGRATIONS = "countersign-integration-acme";

    private static final Duration RECORD_WAIT = Duration.ofSeconds(15);

    private static Manifests manifests;
    private static ScramKafkaBroker broker;

    @BeforeAll
    static void startABrokerWithTheManifestsUsersAndAcls() throws Exception {
        manifests = Manifests.of(OVERLAY);
        broker = ScramKafkaBroker.start();
        broker.createTopics(topics());
        List<AclBinding> acls = new ArrayList<>();
        for (Map<String, Object> user : manifests.ofKind("KafkaUser")) {
            broker.createUser(Node.str(user, "metadata", "name"));
            acls.addAll(KafkaUserAcls.of(user));
        }
        broker.grant(acls);
        // One record on every topic, written as the super user, so that every read below has something to find.
        try (var producer = new KafkaProducer<String, String>(broker.superUserProducerProperties())) {
            for (String topic : topics()) {
                producer.send(new ProducerRecord<>(topic, "seed", "seed")).get(10, TimeUnit.SECONDS);
            }
        }
    }

    @AfterAll
    static void stopTheBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void everyOverlayGrantsTheAclsThisTestEnforces() {
        List<AclBinding> tested = allAcls(manifests);
        assertThat(tested).isNotEmpty();
        for (String overlay : Manifests.OVERLAYS) {
            assertThat(allAcls(Manifests.of(overlay))).as("overlay " + overlay)
                    .containsExactlyInAnyOrderElementsOf(tested);
        }
    }

    @Test
    void theAgentWritesProposalsAndConversationEvents() throws Exception {
        var agentWrites = MessagingChannels.of("agent-service").writtenTopics();
        assertThat(agentWrites).containsExactlyInAnyOrder(Topics.ACTIONS_PROPOSED, Topics.CONVERSATION_EVENTS);
        for (String topic : agentWrites) {
            assertThat(produce(AGENT, topic).topic()).isEqualTo(topic);
        }
    }

    @Test
    void theAgentCannotWriteDecisionsOrOutcomes() {
        assertCannotWrite(AGENT, Topics.ACTIONS_DECISIONS);
        assertCannotWrite(AGENT, Topics.ACTIONS_OUTCOMES);
    }

    @Test
    void theAgentReadsNoTopicNorJoinsTheExecutorsGroup() {
        for (String topic : topics()) {
            assertCannotRead(AGENT, topic);
        }
        assertCannotJoin(AGENT, "countersign-executor", Topics.ACTIONS_PROPOSED);
    }

    @Test
    void anIntegrationWritesDecisions() throws Exception {
        assertThat(produce(INTEGRATIONS, Topics.ACTIONS_DECISIONS).topic()).isEqualTo(Topics.ACTIONS_DECISIONS);
    }

    @Test
    void anIntegrationReadsItsTenantsOutcomesInAGroupNamedWithItsPrefix() {
        assertThat(readInGroup(INTEGRATIONS, "countersign-integration.acme.chat-bridge", Topics.tenantOutcomes("acme")))
                .isPositive();
    }

    /**
     * An integration principal reads only its own tenant's outcomes: not the shared topic, which carries every
     * tenant's, nor another tenant's copy. Before, one principal read every tenant's outcomes.
     */
    @Test
    void anIntegrationReadsNoOtherTenantsOutcomes() {
        assertCannotRead(INTEGRATIONS, Topics.ACTIONS_OUTCOMES);
        assertCannotRead(INTEGRATIONS, Topics.tenantOutcomes("globex"));
        assertCannotRead("countersign-integration-globex", Topics.tenantOutcomes("acme"));
    }

    @Test
    void anIntegrationCannotWriteProposals() {
        assertCannotWrite(INTEGRATIONS, Topics.ACTIONS_PROPOSED);
    }

    @Test
    void anIntegrationCannotReadInAGroupOutsideItsPrefix() {
        // Another tenant's groups, the executor's, and names sharing the prefix but for its dot: a prefix ACL compares
        // characters, not words.
        for (String group : List.of("countersign-executor", "countersign-integration.globex.chat-bridge",
                "countersign-integration.acmex.bridge", "chat-bridge")) {
            assertCannotJoin(INTEGRATIONS, group, Topics.tenantOutcomes("acme"));
        }
    }

    @Test
    void theExecutorReadsEachOfItsTopicsInTheGroupItsConfigurationNames() {
        Map<String, String> groupByTopic = MessagingChannels.of("executor-service").groupByReadTopic();
        assertThat(groupByTopic).containsOnlyKeys(Topics.ACTIONS_PROPOSED, Topics.ACTIONS_DECISIONS,
                Topics.CONVERSATION_EVENTS);
        groupByTopic.forEach((topic, group) -> assertThat(readInGroup(EXECUTOR, group, topic))
                .as("%s reading %s in group %s", EXECUTOR, topic, group)
                .isPositive());
    }

    @Test
    void theExecutorWritesOutcomesAndItsDeadLetterTopics() throws Exception {
        var executorWrites = MessagingChannels.of("executor-service").writtenTopics();
        assertThat(executorWrites).containsExactlyInAnyOrder(Topics.ACTIONS_OUTCOMES,
                Topics.ACTIONS_PROPOSED_DEAD_LETTER, Topics.ACTIONS_DECISIONS_DEAD_LETTER,
                Topics.CONVERSATION_EVENTS_DEAD_LETTER);
        for (String topic : executorWrites) {
            assertThat(produce(EXECUTOR, topic).topic()).isEqualTo(topic);
        }
        // The relay's copies of a listed tenant's outcomes (TENANT_OUTCOME_TOPICS), to topics named in no channel.
        for (String tenant : List.of("acme", "globex")) {
            assertThat(produce(EXECUTOR, Topics.tenantOutcomes(tenant)).topic())
                    .isEqualTo(Topics.tenantOutcomes(tenant));
        }
    }

    @Test
    void theExecutorCannotWriteProposalsOrDecisions() {
        assertCannotWrite(EXECUTOR, Topics.ACTIONS_PROPOSED);
        assertCannotWrite(EXECUTOR, Topics.ACTIONS_DECISIONS);
    }

    private static List<String> topics() {
        return manifests.ofKind("KafkaTopic").stream().map(t -> Node.str(t, "spec", "topicName")).toList();
    }

    private static List<AclBinding> allAcls(Manifests overlay) {
        return overlay.ofKind("KafkaUser").stream().flatMap(u -> KafkaUserAcls.of(u).stream()).toList();
    }

    private static RecordMetadata produce(String user, String topic) throws Exception {
        var producer = new KafkaProducer<String, String>(broker.producerProperties(user));
        try {
            return producer.send(new ProducerRecord<>(topic, "key", "written as " + user)).get(10, TimeUnit.SECONDS);
        } finally {
            producer.close(Duration.ofSeconds(1));
        }
    }

    /** How many records the user read (at least one, or the wait fails) in the group, committing its offsets. */
    private static int readInGroup(String user, String group, String topic) {
        var consumer = new KafkaConsumer<String, String>(broker.consumerProperties(user, group));
        try {
            consumer.subscribe(List.of(topic));
            int count = pollUntilARecord(consumer).count();
            consumer.commitSync();
            return count;
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(1)));
        }
    }

    /** A read without a consumer group: only the topic's own ACLs apply. */
    private static int readAssigned(String user, String topic) {
        var consumer = new KafkaConsumer<String, String>(broker.consumerProperties(user, null));
        try {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            return pollUntilARecord(consumer).count();
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(1)));
        }
    }

    /** Polls until a record arrives; an authorization error surfaces from poll, and no record at all fails. */
    private static ConsumerRecords<String, String> pollUntilARecord(KafkaConsumer<String, String> consumer) {
        Instant deadline = Instant.now().plus(RECORD_WAIT);
        while (Instant.now().isBefore(deadline)) {
            ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
            if (!records.isEmpty()) {
                return records;
            }
        }
        throw new AssertionError("no record within " + RECORD_WAIT);
    }

    private static void assertCannotWrite(String user, String topic) {
        Throwable thrown = catchThrowable(() -> produce(user, topic));
        Throwable refusal = thrown instanceof ExecutionException ? thrown.getCause() : thrown;
        assertThat(refusal).as("%s writing %s", user, topic).isInstanceOf(TopicAuthorizationException.class);
        assertThat(((TopicAuthorizationException) refusal).unauthorizedTopics()).containsExactly(topic);
    }

    private static void assertCannotRead(String user, String topic) {
        Throwable refusal = catchThrowable(() -> readAssigned(user, topic));
        assertThat(refusal).as("%s reading %s", user, topic).isInstanceOf(TopicAuthorizationException.class);
        assertThat(((TopicAuthorizationException) refusal).unauthorizedTopics()).containsExactly(topic);
    }

    private static void assertCannotJoin(String user, String group, String topic) {
        Throwable refusal = catchThrowable(() -> readInGroup(user, group, topic));
        assertThat(refusal).as("%s reading %s in group %s", user, topic, group)
                .isInstanceOf(GroupAuthorizationException.class);
        assertThat(((GroupAuthorizationException) refusal).groupId()).isEqualTo(group);
    }
}
