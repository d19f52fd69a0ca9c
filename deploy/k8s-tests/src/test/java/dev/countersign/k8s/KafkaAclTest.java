package dev.countersign.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.FieldSource;

import dev.countersign.contracts.Topics;

/**
 * Who may read and write which topic. The agent holds no confirm token and must not write (nor read) decisions either;
 * it writes proposals and conversation events and reads nothing. Only the executor reads the decisions topic.
 */
@ParameterizedClass(name = "overlay {0}")
@FieldSource("dev.countersign.k8s.Manifests#OVERLAYS")
class KafkaAclTest {

    private static final String AGENT = "countersign-agent";
    private static final String EXECUTOR = "countersign-executor";
    private static final String INTEGRATIONS = "countersign-integration-";

    private final Manifests manifests;

    KafkaAclTest(String overlay) {
        this.manifests = Manifests.of(overlay);
    }

    @Test
    void theAgentWritesOnlyProposalsAndConversationEventsAndReadsNothing() {
        assertThat(acls(AGENT)).containsExactlyInAnyOrder(
                "allow topic:literal:" + Topics.ACTIONS_PROPOSED + " Write",
                "allow topic:literal:" + Topics.ACTIONS_PROPOSED + " Describe",
                "allow topic:literal:" + Topics.CONVERSATION_EVENTS + " Write",
                "allow topic:literal:" + Topics.CONVERSATION_EVENTS + " Describe");
    }

    @Test
    void theAgentCannotWriteDecisionsOrOutcomesNorReadAnyTopic() {
        assertThat(allows(AGENT, "topic", Topics.ACTIONS_DECISIONS, "Write")).isFalse();
        assertThat(allows(AGENT, "topic", Topics.ACTIONS_OUTCOMES, "Write")).isFalse();
        for (String topic : topics()) {
            assertThat(allows(AGENT, "topic", topic, "Read")).as("agent reads " + topic).isFalse();
        }
        assertThat(allows(AGENT, "group", "countersign-executor", "Read")).isFalse();
    }

    @Test
    void theExecutorReadsProposalsDecisionsAndConversationAndWritesOutcomesAndDeadLetters() {
        assertThat(acls(EXECUTOR)).containsExactlyInAnyOrder(
                "allow topic:literal:" + Topics.ACTIONS_PROPOSED + " Read",
                "allow topic:literal:" + Topics.ACTIONS_PROPOSED + " Describe",
                "allow topic:literal:" + Topics.ACTIONS_DECISIONS + " Read",
                "allow topic:literal:" + Topics.ACTIONS_DECISIONS + " Describe",
                "allow topic:literal:" + Topics.CONVERSATION_EVENTS + " Read",
                "allow topic:literal:" + Topics.CONVERSATION_EVENTS + " Describe",
                "allow group:literal:countersign-executor Read",
                "allow group:literal:countersign-executor-decisions Read",
                "allow group:literal:countersign-executor-conversation Read",
                "allow topic:literal:" + Topics.ACTIONS_OUTCOMES + " Write",
                "allow topic:literal:" + Topics.ACTIONS_OUTCOMES + " Describe",
                "allow topic:prefix:" + Topics.TENANT_PREFIX + " Write",
                "allow topic:prefix:" + Topics.TENANT_PREFIX + " Describe",
                "allow topic:literal:" + Topics.ACTIONS_PROPOSED_DEAD_LETTER + " Write",
                "allow topic:literal:" + Topics.ACTIONS_PROPOSED_DEAD_LETTER + " Describe",
                "allow topic:literal:" + Topics.ACTIONS_DECISIONS_DEAD_LETTER + " Write",
                "allow topic:literal:" + Topics.ACTIONS_DECISIONS_DEAD_LETTER + " Describe",
                "allow topic:literal:" + Topics.CONVERSATION_EVENTS_DEAD_LETTER + " Write",
                "allow topic:literal:" + Topics.CONVERSATION_EVENTS_DEAD_LETTER + " Describe");
    }

    @Test
    void theExecutorsConsumerGroupsAreTheOnesItsConfigurationNames() throws Exception {
        Set<String> groups = new TreeSet<>();
        var properties = new java.util.Properties();
        try (var in = java.nio.file.Files.newBufferedReader(
                Manifests.repoRoot().resolve("executor-service/src/main/resources/application.properties"))) {
            properties.load(in);
        }
        properties.stringPropertyNames().stream()
                .filter(k -> k.startsWith("mp.messaging.incoming.") && k.endsWith(".group.id"))
                .forEach(k -> groups.add(properties.getProperty(k)));
        assertThat(groups).isNotEmpty()
                .allSatisfy(group -> assertThat(allows(EXECUTOR, "group", group, "Read")).isTrue());
    }

    /** One principal per tenant, reading only that tenant's outcome topic, in groups of that tenant's prefix. */
    @Test
    void eachTenantsIntegrationWritesDecisionsAndReadsItsOwnTenantsOutcomesOnly() {
        for (String tenant : List.of("acme", "globex")) {
            assertThat(acls(INTEGRATIONS + tenant)).containsExactlyInAnyOrder(
                    "allow topic:literal:" + Topics.ACTIONS_DECISIONS + " Write",
                    "allow topic:literal:" + Topics.ACTIONS_DECISIONS + " Describe",
                    "allow topic:prefix:" + Topics.TENANT_PREFIX + tenant + ". Read",
                    "allow topic:prefix:" + Topics.TENANT_PREFIX + tenant + ". Describe",
                    "allow group:prefix:countersign-integration." + tenant + ". Read");
        }
        for (Map<String, Object> user : manifests.ofKind("KafkaUser")) {
            String name = Node.str(user, "metadata", "name");
            assertThat(allows(name, "topic", Topics.ACTIONS_OUTCOMES, "Read")).as(name + " reads every tenant's")
                    .isFalse();
        }
        assertThat(topics()).contains(Topics.tenantOutcomes("acme"), Topics.tenantOutcomes("globex"));
    }

    @Test
    void onlyTheExecutorReadsTheDecisionsTopicAndOnlyIntegrationsWriteIt() {
        for (Map<String, Object> user : manifests.ofKind("KafkaUser")) {
            String name = Node.str(user, "metadata", "name");
            assertThat(allows(name, "topic", Topics.ACTIONS_DECISIONS, "Read")).as(name + " reads decisions")
                    .isEqualTo(name.equals(EXECUTOR));
            assertThat(allows(name, "topic", Topics.ACTIONS_DECISIONS, "Write")).as(name + " writes decisions")
                    .isEqualTo(name.startsWith(INTEGRATIONS));
        }
    }

    @Test
    void everyClientAuthenticatesAndTheBrokerAuthorizes() {
        Map<String, Object> kafka = manifests.get("Kafka", "countersign-kafka");
        assertThat(Node.str(kafka, "spec", "kafka", "authorization", "type")).isEqualTo("simple");
        assertThat(Node.strs(kafka, "spec", "kafka", "authorization", "superUsers")).isEmpty();
        assertThat(Node.maps(kafka, "spec", "kafka", "listeners")).isNotEmpty().allSatisfy(listener -> {
            assertThat(Node.str(listener, "tls")).isEqualTo("true");
            assertThat(Node.str(listener, "authentication", "type")).isNotNull();
        });
        for (Map<String, Object> user : manifests.ofKind("KafkaUser")) {
            assertThat(Node.str(user, "spec", "authentication", "type")).isEqualTo("scram-sha-512");
            assertThat(Node.str(user, "spec", "authorization", "type")).isEqualTo("simple");
        }
    }

    private List<String> topics() {
        return manifests.ofKind("KafkaTopic").stream().map(t -> Node.str(t, "spec", "topicName")).toList();
    }

    /** Each ACL of a user as "allow|deny type:pattern:name Operation", one line per operation. */
    private List<String> acls(String user) {
        List<String> acls = new java.util.ArrayList<>();
        for (Map<String, Object> acl : Node.maps(manifests.get("KafkaUser", user), "spec", "authorization", "acls")) {
            String type = Node.str(acl, "type") == null ? "allow" : Node.str(acl, "type");
            String pattern = Node.str(acl, "resource", "patternType") == null
                    ? "literal"
                    : Node.str(acl, "resource", "patternType");
            String resource = "%s:%s:%s".formatted(Node.str(acl, "resource", "type"), pattern,
                    Node.str(acl, "resource", "name"));
            List<String> operations = new java.util.ArrayList<>(Node.strs(acl, "operations"));
            if (Node.str(acl, "operation") != null) {
                operations.add(Node.str(acl, "operation"));
            }
            operations.forEach(op -> acls.add(type + " " + resource + " " + op));
        }
        return acls;
    }

    /** Kafka's rule: a deny wins; All grants everything; Read, Write, Delete and Alter imply Describe. */
    private boolean allows(String user, String resourceType, String name, String operation) {
        boolean allowed = false;
        for (Map<String, Object> acl : Node.maps(manifests.get("KafkaUser", user), "spec", "authorization", "acls")) {
            if (!resourceType.equals(Node.str(acl, "resource", "type")) || !nameMatches(acl, name)) {
                continue;
            }
            List<String> operations = new java.util.ArrayList<>(Node.strs(acl, "operations"));
            if (Node.str(acl, "operation") != null) {
                operations.add(Node.str(acl, "operation"));
            }
            boolean grants = operations.contains(operation) || operations.contains("All")
                    || (operation.equals("Describe")
                            && operations.stream().anyMatch(Set.of("Read", "Write", "Delete", "Alter")::contains));
            if (grants && "deny".equals(Node.str(acl, "type"))) {
                return false;
            }
            allowed |= grants;
        }
        return allowed;
    }

    private static boolean nameMatches(Map<String, Object> acl, String name) {
        String aclName = Node.str(acl, "resource", "name");
        if (aclName == null || aclName.equals("*")) {
            return true;
        }
        return "prefix".equals(Node.str(acl, "resource", "patternType"))
                ? name.startsWith(aclName)
                : name.equals(aclName);
    }
}
