package dev.countersign.agent;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.ContractFixtures;
import dev.countersign.contracts.KafkaHeaders;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.api.ChatRequest;
import dev.countersign.contracts.json.Json;
import dev.countersign.contracts.json.ParamsHash;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.model.ModelTurn;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;

@QuarkusTest
@AgentTestResources
class ChatTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private String tenant;
    private String bearer;
    private UUID checking;

    private AgentFixtures fixtures;

    @BeforeEach
    void freshTenant() throws Exception {
        fixtures = new AgentFixtures();
        tenant = fixtures.tenant;
        bearer = fixtures.bearer;
        checking = fixtures.checking;
    }

    /** A model that calls one tool with the given arguments, then answers with a fixed text. */
    private static void modelCalls(String tool, String arguments) {
        ScriptedModel.use(turn -> turn.pendingToolResults().isEmpty()
                ? ModelReply.toolCall(tool, arguments)
                : ModelReply.text("I have staged that for you to confirm."));
    }

    private ValidatableResponse chat(String conversation, String text) {
        return fixtures.chat(conversation, text);
    }

    /** Publishes a golden outcome as a fresh event of a fresh action of {@code tenantId}, adjusted; its action id. */
    private String publishOutcome(String fixture, String tenantId, Consumer<ObjectNode> adjust) {
        ObjectNode event = (ObjectNode) ContractFixtures.tree(fixture);
        String actionId = UUID.randomUUID().toString();
        event.put("eventId", UUID.randomUUID().toString()).put("actionId", actionId).put("tenantId", tenantId);
        adjust.accept(event);
        kafka.send(Topics.ACTIONS_OUTCOMES, actionId, Json.write(event));
        return actionId;
    }

    private static List<String> toolResults() {
        return ScriptedModel.requests().stream().flatMap(request -> new ModelTurn(request).toolResults().stream())
                .toList();
    }

    @Test
    void anExpenseIsProposedWithoutAnyConfirmTokenTheExecutorMintsThat() throws Exception {
        modelCalls("propose_expense",
                "{\"wallet\":\"checking\",\"amount\":\"12.5\",\"category\":\"coffee\",\"occurredOn\":\"2026-11-29\"}");

        var reply = chat("c-1", "add a 12.50 coffee expense to Checking").statusCode(200)
                .body("proposals", hasSize(1))
                .body("proposals[0].kind", equalTo("ledger.transaction.create"))
                .body("proposals[0].params.amount", equalTo("12.50"))
                .body("proposals[0].params.walletId", equalTo(checking.toString()))
                .extract().jsonPath();
        String actionId = reply.getString("proposals[0].actionId");

        assertThat(reply.getMap("proposals[0]")).doesNotContainKeys("confirmToken", "confirmPath");
        var published = kafka.awaitAny(Topics.ACTIONS_PROPOSED, value -> value.contains(actionId));
        assertThat(published).hasSize(1);
        JsonNode event = Json.mapper().readTree(published.get(0));
        assertThat(event.get("tokenHash").isNull()).isTrue();
        assertThat(event.get("paramsHash").asText()).isEqualTo(ParamsHash.of(event.get("params")));
        assertThat(event.get("tenantId").asText()).isEqualTo(tenant);
        assertThat(event.get("userId").asText()).isEqualTo("alice");
        assertThat(event.get("conversationId").asText()).isEqualTo("c-1");
        // The caller's own bearer token travels as evidence in a header, never in the event body.
        var record = kafka.awaitRecords(Topics.ACTIONS_PROPOSED, value -> value.contains(actionId)).get(0);
        assertThat(KafkaCompanion.getHeader(record.headers(), KafkaHeaders.EVIDENCE)).isEqualTo(bearer);
        assertThat(record.value()).doesNotContain(bearer);
        var turnRecord = kafka.awaitRecords(Topics.CONVERSATION_EVENTS,
                value -> value.contains(tenant) && value.contains("\"c-1\"")).get(0);
        assertThat(KafkaCompanion.getHeader(turnRecord.headers(), KafkaHeaders.EVIDENCE)).isEqualTo(bearer);
        assertThat(ContractFixtures.memberNames(event))
                .containsExactlyInAnyOrderElementsOf(ContractFixtures.memberNames(ContractFixtures.ACTION_PROPOSED));

        assertThat(toolResults()).singleElement().asString().contains("NOT applied").contains(actionId);

        // A later turn of the same conversation carries the earlier turn in its memory.
        ScriptedModel.use(turn -> ModelReply.text("It is waiting for you."));
        chat("c-1", "is it done?").statusCode(200);
        assertThat(ScriptedModel.requests()).isNotEmpty();
        assertThat(ScriptedModel.everythingTheModelSaw()).contains(actionId);
    }

    @Test
    void refusedArgumentsGoBackToTheModelAndNothingIsProposed() {
        modelCalls("propose_expense",
                "{\"wallet\":\"Checking\",\"amount\":\"-5\",\"category\":\"coffee\",\"occurredOn\":\"2026-11-29\"}");

        chat("c-2", "add minus five").statusCode(200).body("proposals", empty());

        assertThat(toolResults()).singleElement().asString().contains("amount: must be greater than 0")
                .contains("Refused, nothing was done");
        assertThat(kafka.readFor(Topics.ACTIONS_PROPOSED, value -> value.contains(tenant), Duration.ofSeconds(2)))
                .isEmpty();
    }

    @Test
    void aBidiOverrideInAnArgumentIsRefusedToTheModelAndNothingIsProposed() {
        // "Refund for lunch" with its tail reversed on screen: the card would not show what is stored.
        modelCalls("propose_expense", "{\"wallet\":\"Checking\",\"amount\":\"5\",\"category\":\"coffee\","
                + "\"description\":\"Refund for \\u202Ehcnul\",\"occurredOn\":\"2026-11-29\"}");

        chat("c-2b", "add a refund").statusCode(200).body("proposals", empty());

        assertThat(toolResults()).singleElement().asString().contains("description: must not contain invisible")
                .contains("U+202E").contains("Refused, nothing was done");
        assertThat(kafka.readFor(Topics.ACTIONS_PROPOSED, value -> value.contains(tenant), Duration.ofSeconds(2)))
                .isEmpty();
    }

    @Test
    void anUnknownWalletIsAnsweredWithTheWalletsThatExist() {
        modelCalls("propose_expense",
                "{\"wallet\":\"Holiday\",\"amount\":\"5\",\"category\":\"coffee\",\"occurredOn\":\"2026-11-29\"}");

        chat("c-3", "add 5 to Holiday").statusCode(200).body("proposals", empty());

        assertThat(toolResults()).singleElement().asString().contains("\"Holiday\" is not one of the allowed values")
                .contains("Checking").contains("Savings").contains("nothing was done");
    }

    @Test
    void anOutcomeOfAnEarlierProposalReachesTheNextTurn() {
        String actionId = publishOutcome(ContractFixtures.ACTION_EXECUTED, tenant,
                event -> event.put("conversationId", "c-4"));
        ConversationAppender.awaitAppended(actionId);
        ScriptedModel.use(turn -> ModelReply.text("Your coffee was added."));

        chat("c-4", "did it work?").statusCode(200);

        String system = new ModelTurn(ScriptedModel.requests().get(0)).systemText();
        assertThat(system).contains(actionId).contains("executed");
    }

    @ParameterizedTest
    @CsvSource({"someone-else, alice", "SAME, bob"})
    void outcomesOfAnotherTenantOrAnotherUserDoNotReachThisConversation(String otherTenant, String otherUser) {
        String theirTenant = "SAME".equals(otherTenant) ? tenant : otherTenant;
        String actionId = publishOutcome(ContractFixtures.ACTION_EXECUTED, theirTenant,
                event -> event.put("userId", otherUser).put("conversationId", "c-5"));
        ConversationAppender.awaitAppended(actionId);
        ScriptedModel.use(turn -> ModelReply.text("Nothing new."));

        chat("c-5", "anything new?").statusCode(200);

        assertThat(ScriptedModel.everythingTheModelSaw()).doesNotContain(actionId);
    }

    @ParameterizedTest
    @ValueSource(strings = {ContractFixtures.ACTION_STAGED, ContractFixtures.ACTION_REJECTED,
            ContractFixtures.ACTION_EXECUTED, ContractFixtures.ACTION_FAILED, ContractFixtures.ACTION_CANCELLED,
            ContractFixtures.ACTION_EXPIRED})
    void everyGoldenOutcomeReachesTheNextTurn(String fixture) {
        String actionId = publishOutcome(fixture, tenant, event -> {
        });
        ConversationAppender.awaitAppended(actionId);
        ScriptedModel.use(turn -> ModelReply.text("Noted."));

        chat("c-fixture-1", "any news?").statusCode(200);

        assertThat(new ModelTurn(ScriptedModel.requests().get(0)).systemText()).contains("Action " + actionId + " ");
    }

    @Test
    void anotherUserWithTheSameConversationIdDoesNotSeeTheHistory() {
        ScriptedModel.use(turn -> ModelReply.text("Noted."));
        chat("c-shared", "my secret word is heliotrope").statusCode(200);
        String bob = TestProperties.agentBearer(tenant, "bob");

        ScriptedModel.use(turn -> ModelReply.text("Hello Bob."));
        given().contentType("application/json").header("Authorization", "Bearer " + bob)
                .body("{\"text\":\"what was the secret word?\"}")
                .post("/api/conversations/{id}/messages", "c-shared").then().statusCode(200);

        assertThat(ScriptedModel.everythingTheModelSaw()).contains("what was the secret word?")
                .doesNotContain("heliotrope");
        // The ledger keeps each user's history under their own key.
        given().header("Authorization", "Bearer " + bearer).get("/api/conversations/{id}", "c-shared").then()
                .statusCode(200).body("turns[0].userText", equalTo("my secret word is heliotrope"));
        given().header("Authorization", "Bearer " + bob).get("/api/conversations/{id}", "c-shared").then()
                .statusCode(200).body("turns", hasSize(1)).body("turns[0].userText",
                        equalTo("what was the secret word?"));
    }

    @Test
    void aModelThatFailsGivesAClearErrorNotAHang() {
        ScriptedModel.use(turn -> {
            throw new IllegalStateException("model is down");
        });

        chat("c-6", "hello").statusCode(503).contentType("application/problem+json")
                .body("code", equalTo("upstream_unavailable"));
    }

    @Test
    void aContentTypeThatIsNotAMediaTypeIsRefusedWith415NotA500() {
        ScriptedModel.use(turn -> ModelReply.text("Not for this request."));
        // RestAssured needs to be told how to write a body of a type it does not know.
        given().config(io.restassured.RestAssured.config().encoderConfig(io.restassured.config.EncoderConfig
                .encoderConfig().encodeContentTypeAs("json", io.restassured.http.ContentType.TEXT)))
                .header("Authorization", "Bearer " + bearer).header("Content-Type", "json").body("{\"text\":\"hi\"}")
                .post("/api/conversations/{id}/messages", "c-8")
                .then().statusCode(415).contentType("application/problem+json")
                .body("code", equalTo("unsupported_request"));
        assertThat(ScriptedModel.requests()).isEmpty();
    }

    @Test
    void withoutABearerTokenTheAnswerIs401() {
        given().contentType("application/json").body("{\"text\":\"hi\"}")
                .post("/api/conversations/{id}/messages", "c-7")
                .then().statusCode(401).contentType("application/problem+json")
                .body("code", equalTo("unauthenticated"));
    }

    @Test
    void aTokenIssuedLongerAgoThanTheMaximumAgeIsRefusedEvenBeforeItExpires() {
        // Signed by the trusted key, right issuer and audience, exp still in the future: only its age is wrong.
        String stale = TestProperties.bearerIssuedAt(tenant, "alice",
                java.time.Instant.now().minus(Duration.ofMinutes(62)), Audiences.AGENT);
        String fresh = TestProperties.bearerIssuedAt(tenant, "alice",
                java.time.Instant.now().minus(Duration.ofMinutes(55)), Audiences.AGENT);

        given().header("Authorization", "Bearer " + stale).get("/api/wallets").then().statusCode(401)
                .contentType("application/problem+json").body("code", equalTo("unauthenticated"));
        given().header("Authorization", "Bearer " + fresh).get("/api/wallets").then().statusCode(200);
    }

    @Test
    void aBlankMessageIsAValidationProblem() {
        chat("c-8", " ").statusCode(400).body("code", equalTo("validation_failed"))
                .body("violations.field", org.hamcrest.Matchers.contains("text"));
    }

    /**
     * The request record's constraints (Hibernate Validator) answer as the hand-written checks did: 400
     * {@code validation_failed} naming each broken field, the stream refused before it starts; and they reach the
     * OpenAPI document the fuzz suite reads.
     */
    @Test
    void theRequestsConstraintsAnswerEachBrokenFieldAndReachTheOpenApiDocument() {
        var send = given().contentType("application/json").header("Authorization", "Bearer " + bearer);
        send.body("{\"text\": \"a\\u0000b\", \"mode\": \"dream\"}").post("/api/conversations/c-9/messages").then()
                .statusCode(400).contentType("application/problem+json").body("code", equalTo("validation_failed"))
                .body("violations.field", org.hamcrest.Matchers.contains("mode", "text"));
        given().contentType("application/json").accept("text/event-stream").header("Authorization", "Bearer " + bearer)
                .body("{\"text\": \"" + "x".repeat(ChatRequest.MAX_LENGTH + 1) + "\"}")
                .post("/api/conversations/c-9/messages").then().statusCode(400)
                .body("violations[0].message", equalTo("must be at most 4000 characters"));
        given().contentType("application/json").header("Authorization", "Bearer " + bearer)
                .post("/api/conversations/c-9/messages").then().statusCode(400)
                .body("violations[0].field", equalTo("body"))
                .body("violations[0].message", org.hamcrest.Matchers.startsWith("must be {\"text\""));

        String document = given().get(Management.url("/openapi?format=json")).then().statusCode(200).extract()
                .asString();
        assertThat(Json.read(document, com.fasterxml.jackson.databind.JsonNode.class).at(
                "/components/schemas/ChatRequest/properties/text/maxLength").asInt()).isEqualTo(ChatRequest.MAX_LENGTH);
    }

    @Test
    void anotherTenantsWalletIsNotFound() {
        String mallory = TestProperties.agentBearer("other-" + UUID.randomUUID(), "mallory");

        given().header("Authorization", "Bearer " + mallory).get("/api/wallets/{id}/transactions", checking)
                .then().statusCode(404).contentType("application/problem+json").body("code", equalTo("not_found"));
        given().header("Authorization", "Bearer " + mallory).get("/api/wallets").then().statusCode(200)
                .body("$", empty());
        given().header("Authorization", "Bearer " + bearer).get("/api/wallets").then().statusCode(200)
                .body("name", org.hamcrest.Matchers.contains("Checking", "Savings"));
    }
}
