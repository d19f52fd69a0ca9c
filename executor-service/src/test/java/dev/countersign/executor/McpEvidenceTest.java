package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.ContractFixtures;
import dev.countersign.contracts.Groups;
import dev.countersign.contracts.KafkaHeaders;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Evidence of an MCP call (docs/mcp.md): a person's MCP token exchanged by agent-service for the executor's MCP
 * evidence audience. It is evidence like the chat's, for that person only, and what it proposes never applies on
 * arrival, whatever the agent marked: Countersign cannot see what entered the external agent's context. It opens no
 * HTTP endpoint.
 */
@QuarkusTest
@ExecutorTestResources
class McpEvidenceTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void tenantWithAgentWritesEnabled() throws Exception {
        tenant = TestTenant.withCheckingWallet();
        TenantPolicies.set(tenant.id(), "agent-writes", Map.of("mode", "enabled"));
    }

    private String mcpEvidence(String user) {
        return TestProperties.tokens().mint(tenant.id(), user, List.of(Audiences.MCP_EVIDENCE), List.of(Groups.USER),
                Duration.ofMinutes(5));
    }

    @Test
    void aSmallExpenseThroughMcpWaitsForAPersonThoughMarkedCleanWhileTheChatsIsApplied() throws Exception {
        var throughMcp = new ProposalMother(tenant, "12.50").withEvidence(mcpEvidence("alice"));
        var fromTheChat = new ProposalMother(tenant, "12.50");

        throughMcp.send(kafka);
        fromTheChat.send(kafka);

        Db.awaitStatus(fromTheChat.actionId, "executed");
        Db.awaitStatus(throughMcp.actionId, "proposed");
        assertThat(Db.text("SELECT requested_by FROM actions WHERE id = ?", throughMcp.actionId)).isEqualTo("alice");
        assertThat(Db.text("SELECT held_reason FROM actions WHERE id = ?", throughMcp.actionId))
                .contains("proposed through an MCP client");
        assertThat(Db.text("SELECT context_clean::text FROM actions WHERE id = ?", throughMcp.actionId))
                .isEqualTo("false");
    }

    @Test
    void mcpEvidenceIsForItsOwnPersonOnly() throws Exception {
        var forged = new ProposalMother(tenant, "12.50").withEvidence(mcpEvidence("bob"));

        forged.send(kafka);

        kafka.awaitRecords(Topics.ACTIONS_PROPOSED_DEAD_LETTER,
                value -> value.contains(forged.actionId.toString()));
        assertThat(Db.count("SELECT count(*) FROM actions WHERE id = ?", forged.actionId)).isZero();
    }

    /** An MCP call's reads: agent-service asks for the person's reader grant with the exchanged evidence. */
    @Test
    void mcpEvidenceMintsThePersonsReaderGrant() {
        given().contentType("application/json")
                .body(Map.of("tenantId", tenant.id(), "userId", "alice", "evidence", mcpEvidence("alice")))
                .post("/api/reader-grants").then().statusCode(200);
        given().contentType("application/json")
                .body(Map.of("tenantId", tenant.id(), "userId", "alice", "evidence", mcpEvidence("bob")))
                .post("/api/reader-grants").then().statusCode(401);
    }

    /**
     * MCP evidence opens no endpoint, not even on a token the identity provider issued for this API as well: a token
     * valid for two of the exclusive audiences is refused (countersign.security.exclusive-audiences).
     */
    @Test
    void mcpEvidenceOpensNoEndpoint() {
        String both = TestProperties.tokens().mint(tenant.id(), "alice",
                List.of(Audiences.EXECUTOR, Audiences.MCP_EVIDENCE), List.of(Groups.USER, Groups.APPROVER),
                Duration.ofMinutes(5));
        given().header("Authorization", "Bearer " + tenant.bearer("alice", Groups.USER))
                .get("/api/actions/policy/tiers")
                .then().statusCode(200);
        given().header("Authorization", "Bearer " + both).get("/api/actions/policy/tiers").then().statusCode(401);
        given().header("Authorization", "Bearer " + mcpEvidence("alice")).get("/api/actions/policy/tiers").then()
                .statusCode(401);
    }

    /**
     * An MCP call writes no conversation turn, so its evidence appends none: a compromised agent cannot plant a turn
     * (marked clean) in the person's chat with it.
     */
    @Test
    void mcpEvidenceAppendsNoConversationTurn() throws Exception {
        ObjectNode turn = (ObjectNode) ContractFixtures.tree(ContractFixtures.TURN_RECORDED);
        String marker = "c-" + UUID.randomUUID();
        turn.put("eventId", UUID.randomUUID().toString()).put("turnId", UUID.randomUUID().toString())
                .put("tenantId", tenant.id()).put("userId", "alice").put("conversationId", marker);

        kafka.send(Topics.CONVERSATION_EVENTS, marker, Json.write(turn),
                Map.of(KafkaHeaders.EVIDENCE, mcpEvidence("alice")));

        List<String> parked = kafka.read(Topics.CONVERSATION_EVENTS_DEAD_LETTER, value -> value.contains(marker),
                found -> !found.isEmpty(), Duration.ofSeconds(15));
        assertThat(parked).hasSize(1);
        assertThat(Db.count("SELECT count(*) FROM conversation_events WHERE conversation_id = ?", marker)).isZero();
    }
}
