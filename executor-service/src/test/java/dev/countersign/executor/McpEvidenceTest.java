package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;

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
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import dev.countersign.executor.evidence.EvidenceVerifier;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;

/**
 * Evidence of an MCP call (docs/mcp.md): a person's MCP token exchanged by agent-service for the executor's MCP
 * evidence audience. It is evidence like the chat's, for that person only, and what it proposes is never marked clean,
 * whatever the agent marked: Countersign cannot see what entered the external agent's context. It applies on arrival
 * only for a kind the tenant's administrators opted in. It opens no HTTP endpoint.
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

    /** As Keycloak's exchange issues it, naming the MCP client the person signed in through (act.client_id). */
    private String mcpEvidence(String user) {
        return TestProperties.tokens().mintExchanged(tenant.id(), user, Audiences.MCP_EVIDENCE, MCP_CLIENT,
                Duration.ofMinutes(5));
    }

    private static final String MCP_CLIENT = "countersign-mcp-client";

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
        // The client the identity provider named is recorded, and shown to whoever decides.
        assertThat(Db.text("SELECT mcp_client FROM actions WHERE id = ?", throughMcp.actionId)).isEqualTo(MCP_CLIENT);
        assertThat(Db.text("SELECT mcp_client FROM actions WHERE id = ?", fromTheChat.actionId)).isNull();
        given().header("Authorization", "Bearer " + tenant.bearer("alice", Groups.USER))
                .get("/api/actions/" + throughMcp.actionId).then().statusCode(200)
                .body("mcpClient", equalTo(MCP_CLIENT));
    }

    /**
     * An administrator opts a kind in, and a second confirms it (a loosening change): then that kind's small MCP
     * proposal applies on arrival under the same tier rules and budget as the chat's, while another kind's still waits.
     */
    @Test
    void aKindOptedInByTwoAdministratorsAppliesOnArrivalThroughMcp() throws Exception {
        String opt = "{\"kinds\": [\"" + ShippedKinds.CREATE_TRANSACTION + "\"]}";
        TenantPolicies.put(tenant.id(), "admin", "mcp-auto-apply", opt).statusCode(202);
        var beforeConfirmed = new ProposalMother(tenant, "12.50").withEvidence(mcpEvidence("alice"));
        beforeConfirmed.send(kafka);
        Db.awaitStatus(beforeConfirmed.actionId, "proposed");
        TenantPolicies.set(tenant.id(), "mcp-auto-apply", opt);
        given().header("Authorization", "Bearer " + TenantPolicies.adminToken(tenant.id(), "admin"))
                .get("/api/actions/policy/mcp-auto-apply").then().statusCode(200)
                .body("kinds", contains(ShippedKinds.CREATE_TRANSACTION));

        var optedIn = new ProposalMother(tenant, "12.50").withEvidence(mcpEvidence("alice"));
        optedIn.send(kafka);

        Db.awaitStatus(optedIn.actionId, "executed");
        assertThat(Db.text("SELECT confirmed_by FROM actions WHERE id = ?", optedIn.actionId))
                .isEqualTo("countersign/auto-apply");
        assertThat(Db.text("SELECT mcp_client FROM actions WHERE id = ?", optedIn.actionId)).isEqualTo(MCP_CLIENT);
        assertThat(Db.count("SELECT count(*) FROM auto_apply_spends WHERE action_id = ?", optedIn.actionId))
                .isOne();
        // Applied, yet never marked clean: its text does not pass for alice's own in a later chat turn.
        assertThat(Db.text("SELECT context_clean::text FROM actions WHERE id = ?", optedIn.actionId))
                .isEqualTo("false");
        // Opting in does not reach back: the proposal staged before the second administrator confirmed still waits.
        assertThat(Db.status(beforeConfirmed.actionId)).isEqualTo("proposed");
        // The same kinds again (repeated) loosen nothing, and taking a kind out tightens: both apply at once.
        TenantPolicies.put(tenant.id(), "admin", "mcp-auto-apply", "{\"kinds\": [\"" + ShippedKinds.CREATE_TRANSACTION
                + "\", \"" + ShippedKinds.CREATE_TRANSACTION + "\"]}").statusCode(200);
        TenantPolicies.put(tenant.id(), "admin", "mcp-auto-apply", "{\"kinds\": []}").statusCode(200);
        var afterTakenOut = new ProposalMother(tenant, "12.50").withEvidence(mcpEvidence("alice"));
        afterTakenOut.send(kafka);
        Db.awaitStatus(afterTakenOut.actionId, "proposed");
        assertThat(Db.text("SELECT held_reason FROM actions WHERE id = ?", afterTakenOut.actionId))
                .contains("proposed through an MCP client");
    }

    /** A kind stored twice (the API stores each once; the column allows it) is read as one, and staging goes on. */
    @Test
    void aKindStoredTwiceIsReadOnce() throws Exception {
        TenantPolicies.set(tenant.id(), "mcp-auto-apply", Map.of("kinds", List.of(ShippedKinds.CREATE_TRANSACTION)));
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate(("UPDATE tenant_policies SET mcp_auto_apply_kinds = ARRAY['%s', '%s']"
                    + " WHERE tenant_id = '%s'").formatted(ShippedKinds.CREATE_TRANSACTION,
                            ShippedKinds.CREATE_TRANSACTION, tenant.id()));
        }
        var proposal = new ProposalMother(tenant, "12.50").withEvidence(mcpEvidence("alice"));

        proposal.send(kafka);

        Db.awaitStatus(proposal.actionId, "executed");
    }

    @Test
    void aKindTheCatalogueDoesNotDeclareCannotBeOptedIn() {
        TenantPolicies.put(tenant.id(), "admin", "mcp-auto-apply", "{\"kinds\": [\"ledger.everything.delete\"]}")
                .statusCode(400).body("code", equalTo("validation_failed"));
    }

    /**
     * Whatever the executor's code does: an action through an MCP client is never stored marked clean (V33: its text
     * never passes for the person's own in a later chat turn, opt-in or not), and it is applied on arrival only for a
     * kind its tenant opted in (R__actions_decision_marks.sql), checked as the executor's role in the tenant.
     */
    @Test
    void theDatabaseAppliesAnMcpProposalOnArrivalOnlyForAnOptedInKindAndNeverMarksItClean() throws Exception {
        String insert = """
                INSERT INTO actions (id, tenant_id, requested_by, kind, tier, status, params, params_hash, token_hash,
                                     summary, proposed_at, expires_at, context_clean, mcp_client)
                VALUES ('%s', '%s', 'alice', '%s', 'low', 'proposed', '{}', repeat('a', 64), repeat('b', 64), 'x',
                        now(), now() + interval '1 hour', %s, 'some-client')""";
        String autoApply = "UPDATE actions SET status = 'confirmed', confirmed_by = 'countersign/auto-apply',"
                + " confirmed_at = now(), auto_applied = true WHERE id = '%s'";
        UUID id = UUID.randomUUID();
        try (var owner = Db.owner()) {
            assertThatThrownBy(() -> owner.createStatement().executeUpdate(
                    insert.formatted(UUID.randomUUID(), tenant.id(), ShippedKinds.CREATE_TRANSACTION, "true")))
                    .hasMessageContaining("actions_mcp_proposals_never_clean");
            owner.createStatement()
                    .executeUpdate(insert.formatted(id, tenant.id(), ShippedKinds.CREATE_TRANSACTION, "false"));
        }
        try (var app = Db.application()) {
            app.setAutoCommit(false);
            Db.enterTenant(app, tenant.id());
            assertThatThrownBy(
                    () -> app.createStatement().executeUpdate(autoApply.formatted(id)))
                    .hasMessageContaining("only a clean proposal, or an MCP one of an opted-in kind, is applied");
            app.rollback();
        }
        TenantPolicies.set(tenant.id(), "mcp-auto-apply", Map.of("kinds", List.of(ShippedKinds.CREATE_TRANSACTION)));
        try (var app = Db.application()) {
            app.setAutoCommit(false);
            Db.enterTenant(app, tenant.id());
            // Now past this rule; the commit would still need the budget's spend (AutoApplyBudgetTest).
            assertThat(app.createStatement().executeUpdate(autoApply.formatted(id))).isOne();
            app.rollback();
        }
        try (var owner = Db.owner()) {
            assertThatThrownBy(() -> owner.createStatement().executeUpdate(
                    insert.formatted(UUID.randomUUID(), tenant.id(), ShippedKinds.CREATE_TRANSACTION, "true")))
                    .hasMessageContaining("actions_mcp_proposals_never_clean");
        }
    }

    /**
     * Evidence of the MCP audience that does not name the client (an identity provider without the mapper of
     * deploy/keycloak-extension) is refused: which client proposed is recorded from the identity provider or not at
     * all, never guessed.
     */
    @Test
    void mcpEvidenceThatNamesNoClientIsRefused() throws Exception {
        String unnamed = TestProperties.tokens().mintExchanged(tenant.id(), "alice", Audiences.MCP_EVIDENCE, null,
                Duration.ofMinutes(5));
        // The exchanging client naming itself: what an exchanged token exchanged again would say.
        String itself = TestProperties.tokens().mintExchanged(tenant.id(), "alice", Audiences.MCP_EVIDENCE,
                "countersign-mcp-exchange", Duration.ofMinutes(5));
        for (String evidence : List.of(unnamed, itself)) {
            var proposal = new ProposalMother(tenant, "12.50").withEvidence(evidence);

            proposal.send(kafka);

            var parked = kafka.awaitRecords(Topics.ACTIONS_PROPOSED_DEAD_LETTER,
                    value -> value.contains(proposal.actionId.toString()));
            assertThat(KafkaCompanion.getHeader(parked.get(0).headers(), "dead-letter-reason"))
                    .contains(EvidenceVerifier.NO_MCP_CLIENT);
            assertThat(Db.count("SELECT count(*) FROM actions WHERE id = ?", proposal.actionId)).isZero();
        }
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
