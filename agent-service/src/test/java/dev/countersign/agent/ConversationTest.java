package dev.countersign.agent;

import static dev.countersign.agent.AgentFixtures.script;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ContractFixtures;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.model.ModelReply.ToolCall;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/** The conversation API, the history a turn is shown, the streamed variant, and where confirm tokens go. */
@QuarkusTest
@AgentTestResources
class ConversationTest {

    private static final String EXPENSE = "{\"wallet\":\"Checking\",\"amount\":\"%s\",\"category\":\"coffee\"}";

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private AgentFixtures fixtures;

    @BeforeEach
    void freshTenant() throws Exception {
        fixtures = new AgentFixtures();
    }

    @Test
    void aConversationIsCreatedReadBackAndUnknownOnesAreNotFound() {
        String id = given().header("Authorization", "Bearer " + fixtures.bearer).post("/api/conversations").then()
                .statusCode(201).header("Location", org.hamcrest.Matchers.containsString("/api/conversations/c-"))
                .body("turns", hasSize(0))
                .extract().jsonPath().getString("conversationId");
        given().header("Authorization", "Bearer " + fixtures.bearer).get("/api/conversations/{id}", id).then()
                .statusCode(404).contentType("application/problem+json").body("code", equalTo("not_found"));

        ScriptedModel.use(script(ModelReply.toolCall("propose_expense", EXPENSE.formatted("2.50")),
                ModelReply.text("Staged, waiting for you.")));
        fixtures.chat(id, "add a 2.50 coffee").statusCode(200).body("recorded", equalTo(true));

        given().header("Authorization", "Bearer " + fixtures.bearer).get("/api/conversations/{id}", id).then()
                .statusCode(200).body("turns", hasSize(1)).body("turns[0].userText", equalTo("add a 2.50 coffee"))
                .body("turns[0].reply", equalTo("Staged, waiting for you."))
                .body("turns[0].rounds[0].calls[0].tool", equalTo("propose_expense"))
                .body("turns[0].proposals[0].kind", equalTo("ledger.transaction.create"))
                .body("turns[0].proposals[0].confirmToken", org.hamcrest.Matchers.nullValue());
    }

    @Test
    void theNextTurnIsShownEveryEarlierTurnWithItsToolCallsAndResults() {
        ScriptedModel.use(script(ModelReply.toolCall("list_wallets", "{}"), ModelReply.text("Checking and Savings.")));
        fixtures.chat("c-history", "which wallets do I have?").statusCode(200);
        ScriptedModel.use(script(ModelReply.text("You asked about your wallets.")));

        fixtures.chat("c-history", "what did I ask before?").statusCode(200);

        JsonNode messages = ScriptedModel.requests().get(0).path("messages");
        List<String> roles = new ArrayList<>();
        messages.forEach(message -> roles.add(message.path("role").asText()));
        assertThat(roles).containsExactly("system", "user", "assistant", "tool", "assistant", "user");
        assertThat(messages.get(1).path("content").asText()).isEqualTo("which wallets do I have?");
        String callId = messages.get(2).path("tool_calls").get(0).path("id").asText();
        assertThat(messages.get(2).path("tool_calls").get(0).path("function").path("name").asText())
                .isEqualTo("list_wallets");
        assertThat(messages.get(3).path("tool_call_id").asText()).isEqualTo(callId);
        assertThat(messages.get(3).path("content").asText()).contains("Checking (EUR)");
        assertThat(messages.get(4).path("content").asText()).isEqualTo("Checking and Savings.");
    }

    @Test
    void severalProposalsAcrossTurnsCarryNoConfirmTokenAnywhere() throws Exception {
        for (int turn = 1; turn <= 3; turn++) {
            ScriptedModel.use(script(ModelReply.toolCalls(new ToolCall("propose_expense", EXPENSE.formatted(turn)),
                    new ToolCall("propose_wallet_rename", "{\"wallet\":\"Savings\",\"name\":\"Pot " + turn + "\"}")),
                    ModelReply.text("Both are waiting for you.")));
            String reply = fixtures.chat("c-several", "turn " + turn).statusCode(200).body("proposals", hasSize(2))
                    .extract().asString();
            assertThat(reply).doesNotContainIgnoringCase("token");
            assertThat(ScriptedModel.requests()).hasSize(2);
        }
        List<String> ledger = kafka.readFor(Topics.CONVERSATION_EVENTS, value -> value.contains(fixtures.tenant),
                Duration.ofSeconds(1));
        assertThat(ledger).hasSize(3).allSatisfy(event -> assertThat(event).doesNotContainIgnoringCase("token"));
        assertThat(ContractFixtures.memberNames(Json.mapper().readTree(ledger.get(0))))
                .containsExactlyInAnyOrderElementsOf(ContractFixtures.memberNames(ContractFixtures.TURN_RECORDED));
        List<String> proposals = kafka.readFor(Topics.ACTIONS_PROPOSED, value -> value.contains(fixtures.tenant),
                Duration.ofSeconds(1));
        assertThat(proposals).hasSize(6).allSatisfy(event -> assertThat(Json.mapper().readTree(event)
                .get("tokenHash").isNull()).isTrue());
    }

    @Test
    void theStreamedReplySendsToolProgressProposalsAndTheReply() {
        ScriptedModel.use(script(ModelReply.toolCall("propose_expense", EXPENSE.formatted("4.20")),
                ModelReply.text("Staged.")));

        String stream = given().contentType("application/json").accept("text/event-stream")
                .header("Authorization", "Bearer " + fixtures.bearer).body("{\"text\":\"coffee 4.20\"}")
                .post("/api/conversations/{id}/messages", "c-stream").then().statusCode(200)
                .contentType(startsWith("text/event-stream")).extract().asString();

        assertThat(stream).containsSubsequence("event:tool", "\"tool\":\"propose_expense\"", "event:proposal",
                "\"paramsHash\"", "event:reply", "\"reply\":\"Staged.\"", "\"ending\":\"ANSWERED\"");
    }

    @Test
    void aStreamedTurnThatFailsEndsWithAProblemEvent() {
        ScriptedModel.use(turn -> {
            throw new IllegalStateException("model down");
        });

        String stream = given().contentType("application/json").accept("text/event-stream")
                .header("Authorization", "Bearer " + fixtures.bearer).body("{\"text\":\"hi\"}")
                .post("/api/conversations/{id}/messages", "c-stream-fail").then().statusCode(200).extract()
                .asString();

        assertThat(stream).contains("event:problem").contains("\"code\":\"upstream_unavailable\"");
    }

    @Test
    void badInputIsAProblemBeforeAnyStreamStartsAndControlCharactersAreRefused() {
        ScriptedModel.use(script(ModelReply.text("never asked")));
        given().contentType("application/json").accept("text/event-stream")
                .header("Authorization", "Bearer " + fixtures.bearer).body("{\"text\":\" \"}")
                .post("/api/conversations/{id}/messages", "c-bad").then().statusCode(400)
                .contentType("application/problem+json").body("code", equalTo("validation_failed"));
        given().contentType("application/json").header("Authorization", "Bearer " + fixtures.bearer)
                .body("{\"text\":\"hello\\u0000world\"}").post("/api/conversations/{id}/messages", "c-bad").then()
                .statusCode(400).body("code", equalTo("validation_failed"))
                .body("violations[0].field", equalTo("text"))
                .body("violations[0].message", startsWith("must not contain control characters"));
        given().contentType("application/json").header("Authorization", "Bearer " + fixtures.bearer)
                .body("{\"text\":\"hi\"}").post("/api/conversations/{id}/messages", "bad id!").then()
                .statusCode(400).body("code", equalTo("validation_failed"));
        assertThat(ScriptedModel.requests()).isEmpty();
    }

    @Test
    void anUnknownModeIsInvalid() {
        given().contentType("application/json").header("Authorization", "Bearer " + fixtures.bearer)
                .body("{\"text\":\"hi\",\"mode\":\"yolo\"}")
                .post("/api/conversations/{id}/messages", "c-mode").then().statusCode(400)
                .body("code", equalTo("validation_failed"));
    }
}
