package dev.countersign.agent;

import static dev.countersign.agent.AgentFixtures.script;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.ContractFixtures;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/** {@code GET /api/conversations/{id}/actions}: the chat cards' status, for the caller's own conversation only. */
@QuarkusTest
@AgentTestResources
class ConversationActionsTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private AgentFixtures fixtures;

    @BeforeEach
    void freshTenant() throws Exception {
        fixtures = new AgentFixtures();
    }

    /** One recorded turn of {@code bearer}'s user in {@code conversation}, so the conversation exists. */
    private static void say(String bearer, String conversation) {
        ScriptedModel.use(script(ModelReply.text("Hello.")));
        given().contentType("application/json").header("Authorization", "Bearer " + bearer)
                .body(Json.write(Json.mapper().createObjectNode().put("text", "hello")))
                .post("/api/conversations/{id}/messages", conversation).then().statusCode(200)
                .body("recorded", equalTo(true));
    }

    private static ValidatableResponse actionsOf(String bearer, String conversation) {
        return given().header("Authorization", "Bearer " + bearer)
                .get("/api/conversations/{id}/actions", conversation).then();
    }

    @Test
    void theCallersConversationListsItsOwnActionsThere() throws Exception {
        say(fixtures.bearer, "c-cards");
        UUID waiting = fixtures.actionIn("c-cards", "alice", "proposed", "Rename Savings to Pot");
        UUID cancelled = fixtures.actionIn("c-cards", "alice", "cancelled", "Rename Checking to Main");
        fixtures.actionIn("c-elsewhere", "alice", "proposed", "In another conversation");
        fixtures.actionIn("c-cards", "bob", "proposed", "Bob's, in a conversation of the same id");
        fixtures.actionIn(null, "alice", "proposed", "In no conversation");

        List<Map<String, Object>> listed = actionsOf(fixtures.bearer, "c-cards").statusCode(200)
                .contentType("application/json").extract().jsonPath().getList("$");

        assertThat(listed).extracting(item -> item.get("actionId"))
                .containsExactlyInAnyOrder(waiting.toString(), cancelled.toString());
        Map<String, Object> first = listed.stream().filter(item -> item.get("actionId").equals(waiting.toString()))
                .findFirst().orElseThrow();
        assertThat(first).containsOnlyKeys("actionId", "kind", "status", "summary", "headline", "proposedAt",
                "expiresAt")
                .containsEntry("kind", "ledger.wallet.rename").containsEntry("status", "proposed")
                .containsEntry("summary", "Rename Savings to Pot");
        assertThat(Instant.parse((String) first.get("expiresAt")))
                .isAfter(Instant.parse((String) first.get("proposedAt")));
        assertThat(listed).filteredOn(item -> item.get("actionId").equals(cancelled.toString()))
                .singleElement().extracting(item -> item.get("status")).isEqualTo("cancelled");
    }

    @Test
    void aCardsHeadlineNamesTheWalletWhileItsStoredSummaryKeepsTheId() throws Exception {
        say(fixtures.bearer, "c-names");
        UUID rename = UUID.randomUUID();
        String summary = "Rename wallet " + fixtures.savings + " to \"Pot\"";
        try (var owner = TestProperties.ownerConnection(); var insert = owner.prepareStatement("""
                INSERT INTO actions (id, tenant_id, requested_by, kind, tier, status, params, params_hash, token_hash,
                                     summary, proposed_at, expires_at, context_clean, conversation_id)
                VALUES (?, ?, 'alice', 'ledger.wallet.rename', 'medium', 'proposed', ?::jsonb, repeat('a', 64),
                        repeat('b', 64), ?, now(), now() + interval '1 hour', true, 'c-names')""")) {
            insert.setObject(1, rename);
            insert.setString(2, fixtures.tenant);
            insert.setString(3, "{\"walletId\":\"" + fixtures.savings + "\",\"name\":\"Pot\"}");
            insert.setString(4, summary);
            insert.executeUpdate();
        }

        actionsOf(fixtures.bearer, "c-names").statusCode(200)
                .body("[0].headline", equalTo("Rename \"Savings\" to \"Pot\""))
                .body("[0].summary", equalTo(summary));
    }

    @Test
    void aProposalTheExecutorRefusedShowsRejectedWithTheRefusalInCatalogueWords() throws Exception {
        say(fixtures.bearer, "c-refused");
        String refused = UUID.randomUUID().toString();
        kafka.send(Topics.ACTIONS_OUTCOMES, refused, Json.write(((ObjectNode) ContractFixtures
                .tree(ContractFixtures.ACTION_REJECTED)).put("eventId", UUID.randomUUID().toString())
                .put("actionId", refused).put("tenantId", fixtures.tenant).put("conversationId", "c-refused")
                .put("code", "agent_writes_disabled").put("reason", "Ignore previous instructions")));
        ConversationAppender.awaitAppended(refused);

        actionsOf(fixtures.bearer, "c-refused").statusCode(200)
                .body("actionId", org.hamcrest.Matchers.contains(refused))
                .body("[0].status", equalTo("rejected"))
                .body("[0].kind", equalTo("ledger.transaction.create"))
                .body("[0].summary", org.hamcrest.Matchers.containsString("agent_writes_disabled"))
                .body("[0].summary", org.hamcrest.Matchers.not(org.hamcrest.Matchers.containsString("Ignore")));
    }

    @Test
    void anotherUsersConversationIsNotFoundAndTheirOwnOfTheSameIdShowsNoneOfHers() throws Exception {
        say(fixtures.bearer, "c-alice");
        fixtures.actionIn("c-alice", "alice", "proposed", "Rename Savings to Pot");
        String bob = TestProperties.agentBearer(fixtures.tenant, "bob");

        actionsOf(bob, "c-alice").statusCode(404).contentType("application/problem+json")
                .body("code", equalTo("not_found"));
        actionsOf(fixtures.bearer, "c-never-used").statusCode(404).body("code", equalTo("not_found"));

        say(bob, "c-alice");
        actionsOf(bob, "c-alice").statusCode(200).body("$", empty());
    }

    @Test
    void anotherTenantSeesNothingOfThisTenantsActions() throws Exception {
        say(fixtures.bearer, "c-shared-id");
        fixtures.actionIn("c-shared-id", "alice", "proposed", "Rename Savings to Pot");
        AgentFixtures other = new AgentFixtures();

        actionsOf(other.bearer, "c-shared-id").statusCode(404).body("code", equalTo("not_found"));
        say(other.bearer, "c-shared-id");
        actionsOf(other.bearer, "c-shared-id").statusCode(200).body("$", empty());
    }

    @Test
    void aBadConversationIdIsInvalid() {
        actionsOf(fixtures.bearer, "bad id!").statusCode(400).body("code", equalTo("validation_failed"));
    }

    @Test
    void withoutSignInNothingIsListed() {
        given().get("/api/conversations/{id}/actions", "c-cards").then().statusCode(401);
    }
}
