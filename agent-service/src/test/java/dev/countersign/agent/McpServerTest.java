package dev.countersign.agent;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.agent.evidence.ReaderGrants;
import dev.countersign.agent.mcp.McpToolCalls;
import dev.countersign.agent.tools.AgentTool;
import dev.countersign.agent.tools.ToolBox;
import dev.countersign.agent.tools.propose.ProposeTools;
import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.Groups;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.DevTokens;
import dev.countersign.devsupport.testing.McpAnswers;
import dev.countersign.devsupport.testing.TestProperties;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * The MCP server's door (docs/mcp.md): only a bearer token of its own audience opens it, a refusal says where to sign
 * in (RFC 9728), and the tools it lists are the built-in agent's, the propose tools marked as writes a person approves.
 * Tool calls need the identity provider's token exchange, which this suite does not run: here they must fail closed.
 */
@QuarkusTest
@AgentTestResources
class McpServerTest {

    private static final String TENANT = "t-mcp";
    /** Characters a mutation inserts: JSON's structure, a quote, a backslash, NUL, a non-ASCII letter. */
    private static final String JSON_NOISE = "{}[]\",:\\\u0000\u00e9";

    @Inject
    ToolBox toolBox;

    @Inject
    ProposeTools proposeTools;

    @Inject
    ReaderGrants grants;

    private static String token(String audience) {
        return TestProperties.tokens().mint(TENANT, "mia", List.of(audience), List.of(Groups.USER),
                Duration.ofMinutes(5));
    }

    private static Response post(String token, String session, Map<String, Object> message) {
        var request = given().contentType("application/json").accept("application/json, text/event-stream")
                .body(Json.write(message));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (session != null) {
            request.header("Mcp-Session-Id", session);
        }
        return request.post("/mcp");
    }

    private static Map<String, Object> initialize() {
        return Map.of("jsonrpc", "2.0", "id", 1, "method", "initialize", "params", Map.of("protocolVersion",
                "2025-06-18", "capabilities", Map.of(), "clientInfo", Map.of("name", "test", "version", "1")));
    }

    /** A session opened with {@code token}: its id. */
    private static String session(String token) {
        Response opened = post(token, null, initialize());
        opened.then().statusCode(200);
        String session = opened.header("Mcp-Session-Id");
        assertThat(session).isNotBlank();
        post(token, session, Map.of("jsonrpc", "2.0", "method", "notifications/initialized")).then()
                .statusCode(202);
        return session;
    }

    /** The JSON-RPC message of an answer, whether sent as JSON or as one server-sent event. */
    private static JsonNode message(Response answer) {
        return Json.read(McpAnswers.json(answer.asString()), JsonNode.class);
    }

    /**
     * A bearer challenge. Its {@code resource_metadata} parameter and the metadata document (RFC 9728) need the
     * identity provider's URL, which this suite's dev signing key has none of: McpIT checks them with Keycloak.
     */
    @Test
    void withoutATokenTheAnswerIsABearerChallenge() {
        post(null, null, initialize()).then().statusCode(401).header("WWW-Authenticate", containsString("Bearer"));
        // Also a message McpFailures answers itself when signed in: the sign-in comes first.
        post(null, null, Map.of("jsonrpc", "2.0", "id", 2, "method", "tools/call", "params", Map.of())).then()
                .statusCode(401);
    }

    @Test
    void aTokenForAnotherAudienceOpensNothing() {
        for (String audience : List.of(Audiences.AGENT, Audiences.EXECUTOR, Audiences.MCP_EVIDENCE)) {
            post(token(audience), null, initialize()).then().statusCode(401)
                    .header("WWW-Authenticate", startsWith("Bearer error=\"invalid_token\""));
        }
    }

    /**
     * A second-device approval's token (docs/approvals.md, audience countersign-second-device-approval) opens neither
     * door, nor does one that also names the chat's audience (an exclusive audience here too).
     */
    @Test
    void aSecondDeviceApprovalsTokenOpensNeitherTheChatNorTheMcpServer() {
        String approval = token(SECOND_DEVICE_AUDIENCE);
        post(approval, null, initialize()).then().statusCode(401);
        String withChat = TestProperties.tokens().mint(TENANT, "mia", List.of(Audiences.AGENT, SECOND_DEVICE_AUDIENCE),
                List.of(Groups.USER), Duration.ofMinutes(5));
        for (String token : List.of(approval, withChat)) {
            given().header("Authorization", "Bearer " + token).contentType("application/json")
                    .body("{\"text\": \"hello\"}").post("/api/conversations/c1/messages").then().statusCode(401);
        }
    }

    private static final String SECOND_DEVICE_AUDIENCE = "countersign-second-device-approval";

    /** An expired token gets the challenge, so the client knows to sign in again (MCP authorization, RFC 6750). */
    @Test
    void anExpiredTokenGetsTheBearerChallenge() {
        Instant issued = Instant.now().minus(Duration.ofMinutes(10));
        String expired = TestProperties.tokens().mint(TENANT, "mia", List.of(Audiences.MCP), List.of(Groups.USER),
                issued, issued.plus(Duration.ofMinutes(5)));
        Response refused = post(expired, null, initialize());
        refused.then().statusCode(401).header("WWW-Authenticate", startsWith("Bearer error=\"invalid_token\""));
    }

    /**
     * One token, one door. An MCP token drives no chat turn, whatever the path (quarkus-oidc would pick the mcp tenant
     * for a path segment spelled like it if the resolver let it), and a token the identity provider issued for both the
     * chat and the MCP server is refused by both (countersign.security.exclusive-audiences).
     */
    @Test
    void anMcpTokenOpensNoChatAndATokenForBothOpensNeither() {
        String mcp = token(Audiences.MCP);
        for (String path : List.of("/api/conversations/mcp/messages", "/api/conversations/c1/messages")) {
            given().header("Authorization", "Bearer " + mcp).contentType("application/json")
                    .body("{\"text\": \"add a 12.50 coffee expense to Checking\"}").post(path).then().statusCode(401);
        }
        String both = TestProperties.tokens().mint(TENANT, "mia", List.of(Audiences.AGENT, Audiences.MCP),
                List.of(Groups.USER), Duration.ofMinutes(5));
        given().header("Authorization", "Bearer " + both).contentType("application/json")
                .body("{\"text\": \"hello\"}").post("/api/conversations/c1/messages").then().statusCode(401);
        Response refused = post(both, null, initialize());
        assertThat(refused.statusCode()).isEqualTo(200);
        JsonNode listed = message(post(both, refused.header("Mcp-Session-Id"),
                Map.of("jsonrpc", "2.0", "id", 2, "method", "tools/call", "params",
                        Map.of("name", "list_wallets", "arguments", Map.of()))));
        assertThat(listed.path("error").path("message").asText()).startsWith("unauthenticated");
    }

    @Test
    void theToolsAreTheBuiltInAgentsAndTheProposeToolsAreWritesAPersonApproves() {
        String token = token(Audiences.MCP);
        JsonNode listed = message(post(token, session(token),
                Map.of("jsonrpc", "2.0", "id", 2, "method", "tools/list")));

        JsonNode tools = listed.path("result").path("tools");
        List<String> names = new java.util.ArrayList<>();
        tools.forEach(tool -> names.add(tool.path("name").asText()));
        assertThat(names).containsExactlyInAnyOrderElementsOf(toolBox.names());
        List<String> proposing = proposeTools.offered().stream().map(AgentTool::name).toList();
        assertThat(proposing).isNotEmpty();
        JsonNode expense = null;
        for (JsonNode tool : tools) {
            if (tool.path("name").asText().equals("propose_expense")) {
                expense = tool;
            }
        }
        tools.forEach(tool -> {
            boolean proposes = proposing.contains(tool.path("name").asText());
            JsonNode hints = tool.path("annotations");
            assertThat(hints.path("readOnlyHint").asBoolean()).as(tool.path("name").asText()).isEqualTo(!proposes);
            assertThat(hints.path("destructiveHint").asBoolean()).isEqualTo(proposes);
            assertThat(tool.path("_meta").path("dev.countersign/approval").asText())
                    .isEqualTo(proposes ? "required" : "none");
            assertThat(tool.path("inputSchema").path("type").asText()).isEqualTo("object");
        });
        assertThat(expense).isNotNull();
        assertThat(expense.path("description").asText()).contains("nothing is written until a person approves it");
        assertThat(expense.path("inputSchema").path("properties").path("wallet").path("type").asText())
                .isEqualTo("string");
        assertThat(expense.path("inputSchema").path("properties").path("wallet").has("enum")).isFalse();
    }

    /**
     * The MCP token never reaches the executor: it is not remembered as the person's token for reader grants (only the
     * agent audience's are), so no grant is ever asked for with it.
     */
    @Test
    void anMcpTokenIsNeverTheTokenAReaderGrantIsAskedWith() {
        String token = token(Audiences.MCP);
        session(token);

        assertThat(grants.signedIn(TENANT)).doesNotContain("mia");
    }

    /**
     * One MCP client's calls in a tenant are bounded (MCP_CALLS_PER_CLIENT, 120 a minute), whoever signed in through
     * it: seven people, each under the per-person limit, make 126 calls through the client {@code busy-client}; from
     * the 121st on, every call is refused with {@code rate_limited} before anything runs.
     */
    @Test
    void oneClientsCallsAreBoundedAcrossItsPeople() {
        String tenant = "t-mcp-limit-" + java.util.UUID.randomUUID();
        List<String> answers = new java.util.ArrayList<>();
        for (int person = 0; person < 7; person++) {
            Instant now = Instant.now();
            String token = TestProperties.tokens().sign(Map.of("iss", DevTokens.ISSUER, "sub", "p" + person,
                    "tenant", tenant, "aud", List.of(Audiences.MCP), "groups", List.of(Groups.USER), "azp",
                    "busy-client", "iat", now.getEpochSecond(), "exp", now.plusSeconds(300).getEpochSecond()));
            String session = session(token);
            for (int call = 0; call < 18; call++) {
                answers.add(message(post(token, session, Map.of("jsonrpc", "2.0", "id", call, "method", "tools/call",
                        "params", Map.of("name", "list_wallets", "arguments", Map.of())))).path("error")
                        .path("message").asText());
            }
        }
        assertThat(answers.subList(0, 120)).allSatisfy(answer -> assertThat(answer).startsWith("upstream_unavailable"));
        assertThat(answers.subList(120, 126))
                .allSatisfy(answer -> assertThat(answer).startsWith("rate_limited: This MCP client made 120 calls"));
    }

    /**
     * Arguments that are no object, or hold a JSON null, are invalid parameters (-32602), not the extension's -32603
     * "Internal error" (its ClassCastException and NullPointerException, found by McpIT's generated calls).
     */
    @Test
    void malformedArgumentsAreInvalidParameters() {
        String token = token(Audiences.MCP);
        String session = session(token);
        for (String arguments : List.of("\"Checking\"", "[]", "42", "{\"wallet\":null,\"amount\":\"1.00\"}")) {
            JsonNode answer = message(given().header("Authorization", "Bearer " + token)
                    .header("Mcp-Session-Id", session).contentType("application/json")
                    .accept("application/json, text/event-stream")
                    .body("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
                            + "\"propose_expense\",\"arguments\":" + arguments + "}}")
                    .post("/mcp"));
            assertThat(answer.path("error").path("code").asInt()).as(arguments).isEqualTo(-32602);
            assertThat(answer.path("error").path("message").asText()).as(arguments).startsWith("validation_failed: ");
            assertThat(answer.path("id").asInt()).isEqualTo(5);
        }
    }

    /**
     * Hostile JSON-RPC at the door, from a signed-in client: whatever arrives (not JSON, the wrong shape, an unknown
     * method or tool, arguments of the wrong type, 150 seeded mutations of a valid call), the answer is never a 5xx; a
     * message over the body limit is 413 before it is read.
     */
    @Test
    void hostileMessagesGetNoServerErrorAndRunNothing() {
        // A person of their own, so their calls do not count against another test's limit.
        String token = TestProperties.tokens().mint(TENANT, "fuzz", List.of(Audiences.MCP), List.of(Groups.USER),
                Duration.ofMinutes(5));
        String session = session(token);
        java.util.Random random = new java.util.Random(43);
        List<String> bodies = new java.util.ArrayList<>(List.of("", "not json", "[]", "[1,2]", "null", "{}",
                "{\"jsonrpc\":\"1.0\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1}", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"no/such\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tools/list\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"list_wallets\",\"arguments\":[]}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":42}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"file:///etc/passwd\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}",
                "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}]", "[1,{}]"));
        // Written out, so the seeded mutations are the same on every run.
        String valid = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
                + "\"propose_expense\",\"arguments\":{\"wallet\":\"Checking\",\"amount\":\"1.00\"}}}";
        for (int i = 0; i < 150; i++) {
            StringBuilder mutated = new StringBuilder(valid);
            for (int edit = 0; edit <= random.nextInt(4); edit++) {
                int at = random.nextInt(mutated.length());
                switch (random.nextInt(3)) {
                    case 0 -> mutated.deleteCharAt(at);
                    case 1 -> mutated.insert(at, JSON_NOISE.charAt(random.nextInt(JSON_NOISE.length())));
                    default -> mutated.setCharAt(at, (char) (32 + random.nextInt(95)));
                }
            }
            bodies.add(mutated.toString());
        }
        for (String body : bodies) {
            Response answer;
            try {
                answer = given().config(io.restassured.RestAssured.config().httpClient(
                        io.restassured.config.HttpClientConfig.httpClientConfig()
                                .setParam("http.socket.timeout", 5000)))
                        .header("Authorization", "Bearer " + token).header("Mcp-Session-Id", session)
                        .contentType("application/json").accept("application/json, text/event-stream").body(body)
                        .post("/mcp");
            } catch (Exception unanswered) {
                throw new AssertionError("no answer within 5 s to " + body, unanswered);
            }
            assertThat(answer.statusCode()).as("%s answered %s", body, answer.asString()).isLessThan(500);
        }
        String tooLarge = Json.write(Map.of("jsonrpc", "2.0", "id", 10, "method", "tools/call", "params",
                Map.of("name", "propose_expense", "arguments", Map.of("description", "x".repeat(300_000)))));
        int status;
        try {
            status = given().header("Authorization", "Bearer " + token).header("Mcp-Session-Id", session)
                    .contentType("application/json").accept("application/json, text/event-stream").body(tooLarge)
                    .post("/mcp").statusCode();
        } catch (Exception closedWhileSending) {
            // Under load the server's 413 and its closing the connection can come before the client sent it all: a
            // broken pipe or a reset is that refusal (seen once in CI), anything else is not.
            assertThat(closedWhileSending).hasRootCauseInstanceOf(java.net.SocketException.class);
            status = 413;
        }
        assertThat(status).isEqualTo(413);
        // And the server still answers this session: the closed connection was that one request's refusal.
        assertThat(message(post(token, session, Map.of("jsonrpc", "2.0", "id", 11, "method", "tools/list")))
                .path("result").path("tools").size()).isGreaterThan(5);
    }

    /** What a propose call answers besides its text: the action, submitted, and the page where a person decides it. */
    @Test
    void aSubmittedActionLinksToWhereAPersonDecidesIt() {
        java.util.UUID id = java.util.UUID.randomUUID();
        var card = new dev.countersign.contracts.api.ProposalCard(id, "ledger.transaction.create", "Add 12.50",
                null, "hash", java.time.Instant.now());

        var submitted = McpToolCalls.SubmittedAction.of(card, java.util.Optional.of("https://decide.example"));

        assertThat(submitted.status()).isEqualTo("submitted");
        assertThat(submitted.decisionPage()).isEqualTo("https://decide.example/decide/?action=" + id);
        assertThat(McpToolCalls.SubmittedAction.of(card, java.util.Optional.empty()).decisionPage()).isNull();
    }

    @Test
    void aCallWithoutTheIdentityProvidersExchangeIsRefusedAndDoesNothing() {
        String token = token(Audiences.MCP);
        JsonNode answer = message(post(token, session(token), Map.of("jsonrpc", "2.0", "id", 3, "method",
                "tools/call", "params", Map.of("name", "list_wallets", "arguments", Map.of()))));

        assertThat(answer.path("error").path("message").asText()).startsWith("upstream_unavailable");
        assertThat(answer.has("result")).isFalse();
    }
}
