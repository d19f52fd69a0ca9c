package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.Groups;
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
        assertThat(Db.text("SELECT held_reason FROM actions WHERE id = ?", throughMcp.actionId)).contains("read text");
        assertThat(Db.text("SELECT context_clean::text FROM actions WHERE id = ?", throughMcp.actionId))
                .isEqualTo("false");
    }

    @Test
    void mcpEvidenceIsForItsOwnPersonOnly() throws Exception {
        var forged = new ProposalMother(tenant, "12.50").withEvidence(mcpEvidence("bob"));

        forged.send(kafka);

        kafka.awaitRecords(dev.countersign.contracts.Topics.ACTIONS_PROPOSED_DEAD_LETTER,
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

    @Test
    void mcpEvidenceOpensNoEndpoint() {
        given().header("Authorization", "Bearer " + mcpEvidence("alice")).get("/api/actions").then()
                .statusCode(401);
        given().header("Authorization", "Bearer " + mcpEvidence("alice")).get("/api/actions/policy/tiers").then()
                .statusCode(401);
    }
}
