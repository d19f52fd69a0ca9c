package dev.countersign.localstack;

import static dev.countersign.devsupport.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.LocalKeycloak;

/**
 * The MCP server against the real Keycloak (docs/adr/0008): the sign-in a client discovers (401, protected resource
 * metadata naming Keycloak), then with a token for the MCP audience the person's reads, and a proposal that reaches the
 * executor through the evidence Keycloak exchanged for it, waits there, and is executed once a person confirms it.
 * Spoken in plain JSON-RPC over HTTP, and by the official TypeScript SDK as a person's MCP client would.
 */
class McpIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static LocalStack stack;

    @BeforeAll
    static void startTheStackWithKeycloak() throws IOException {
        stack = LocalStack.start(TestStacks.withExecutors(1, Map.of(
                "SMTP_PORT", String.valueOf(TestStacks.freePort()),
                "TICKET_PORT", String.valueOf(TestStacks.freePort()),
                "KEYCLOAK_PORT", String.valueOf(TestStacks.freePort()))));
    }

    @AfterAll
    static void stopTheStack() {
        if (stack != null) {
            stack.close();
        }
    }

    private record Answer(int status, String session, String challenge, JsonNode message) {
    }

    private static Answer rpc(String token, String session, Map<String, Object> message)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(stack.agentUrl() + "/mcp"))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(message)));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (session != null) {
            request.header("Mcp-Session-Id", session);
        }
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        String body = response.body();
        String json = body.startsWith("{")
                ? body
                : body.lines().filter(line -> line.startsWith("data:")).map(line -> line.substring(5).trim())
                        .reduce("", String::concat);
        return new Answer(response.statusCode(), response.headers().firstValue("Mcp-Session-Id").orElse(null),
                response.headers().firstValue("WWW-Authenticate").orElse(null),
                json.isBlank() ? null : Json.mapper().readTree(json));
    }

    private static Map<String, Object> initialize() {
        return Map.of("jsonrpc", "2.0", "id", 1, "method", "initialize", "params", Map.of("protocolVersion",
                "2025-06-18", "capabilities", Map.of(), "clientInfo", Map.of("name", "mcp-it", "version", "1")));
    }

    private static String session(String token) throws IOException, InterruptedException {
        Answer opened = rpc(token, null, initialize());
        assertThat(opened.status()).isEqualTo(200);
        assertThat(rpc(token, opened.session(), Map.of("jsonrpc", "2.0", "method", "notifications/initialized"))
                .status()).isEqualTo(202);
        return opened.session();
    }

    private static JsonNode call(String token, String session, String tool, Map<String, Object> arguments)
            throws IOException, InterruptedException {
        Answer answer = rpc(token, session, Map.of("jsonrpc", "2.0", "id", 7, "method", "tools/call", "params",
                Map.of("name", tool, "arguments", arguments)));
        assertThat(answer.status()).isEqualTo(200);
        return answer.message();
    }

    @Test
    void theSignInIsDiscoveredAsTheSpecificationSays() throws Exception {
        Answer refused = rpc(null, null, initialize());

        assertThat(refused.status()).isEqualTo(401);
        String metadataUrl = stack.agentUrl() + "/.well-known/oauth-protected-resource/mcp";
        assertThat(refused.challenge()).startsWith("Bearer").contains("resource_metadata=\"" + metadataUrl + "\"");
        Http.Answer metadata = Http.get(metadataUrl, null);
        assertThat(metadata.status()).isEqualTo(200);
        assertThat(metadata.body().path("resource").asText()).isEqualTo(stack.agentUrl() + "/mcp");
        assertThat(metadata.body().path("authorization_servers").get(0).asText())
                .isEqualTo(stack.keycloak().issuer());
        assertThat(metadata.body().has("scopes_supported")).isFalse();
    }

    @Test
    void aPersonReadsAndProposesThroughMcpAndTheProposalWaitsUntilAPersonConfirmsIt() throws Exception {
        String token = stack.bearer("acme", "alice", Audiences.MCP);
        String session = session(token);

        JsonNode wallets = call(token, session, "list_wallets", Map.of());
        assertThat(wallets.path("result").path("isError").asBoolean()).as(wallets.toString()).isFalse();
        assertThat(wallets.path("result").path("content").get(0).path("text").asText()).contains("Checking")
                .contains(LocalStack.ACME_CHECKING.toString());

        Map<String, Object> expense = new LinkedHashMap<>();
        expense.put("wallet", "Checking");
        expense.put("amount", "12.50");
        expense.put("category", "coffee");
        expense.put("description", "proposed through MCP");
        JsonNode proposed = call(token, session, "propose_expense", expense);
        assertThat(proposed.path("result").path("isError").asBoolean()).as(proposed.toString()).isFalse();
        JsonNode submitted = proposed.path("result").path("structuredContent").path("actions").get(0);
        String actionId = submitted.path("actionId").asText();
        assertThat(submitted.path("status").asText()).isEqualTo("submitted");
        assertThat(submitted.path("decisionPage").asText())
                .isEqualTo(stack.executorUrl() + "/decide/?action=" + actionId);

        String executorToken = stack.bearer("acme", "alice", Audiences.EXECUTOR);
        String actionUrl = stack.executorUrl() + "/api/actions/" + actionId;
        await().atMost(Duration.ofSeconds(20)).until(() -> Http.get(actionUrl, executorToken).status() == 200);
        Http.Answer staged = Http.get(actionUrl, executorToken);
        assertThat(staged.body().path("status").asText()).isEqualTo("proposed");
        assertThat(staged.body().path("requestedBy").asText()).isEqualTo("alice");

        Http.Answer confirmed = Http.post(actionUrl + "/confirm", executorToken,
                Map.of("paramsHash", staged.body().path("paramsHash").asText()));
        assertThat(confirmed.status()).as(confirmed.text()).isEqualTo(200);
        assertThat(confirmed.body().path("status").asText()).isEqualTo("executed");

        JsonNode outcome = call(token, session, "pending_actions", Map.of());
        assertThat(outcome.path("result").path("content").get(0).path("text").asText()).contains(actionId)
                .contains("executed");
    }

    /**
     * The official TypeScript SDK (deploy/mcp-e2e, {@code npm ci} in .ci/run) as a person's MCP client: it is told
     * nothing but the server's URL and the dev realm's public client, discovers the sign-in itself, signs in once by
     * code flow with PKCE at Keycloak's login form, lists the tools, reads, proposes; a person confirms; the client
     * reads the outcome through MCP.
     */
    @Test
    void anMcpClientNobodyHereWroteSignsInProposesAndReadsTheOutcome() throws Exception {
        int redirectPort = TestStacks.freePort();
        stack.keycloak().allowRedirectUri(LocalKeycloak.MCP_CLIENT, "http://127.0.0.1:" + redirectPort + "/callback");

        JsonNode proposed = sdkClient(redirectPort, "propose");

        assertThat(proposed.path("signIns").asInt()).isOne();
        JsonNode expenseTool = null;
        for (JsonNode tool : proposed.path("tools")) {
            if (tool.path("name").asText().equals("propose_expense")) {
                expenseTool = tool;
            }
        }
        assertThat(expenseTool).isNotNull();
        assertThat(expenseTool.path("annotations").path("readOnlyHint").asBoolean()).isFalse();
        assertThat(expenseTool.path("meta").path("dev.countersign/approval").asText()).isEqualTo("required");
        assertThat(proposed.path("wallets").asText()).contains("Checking");
        assertThat(proposed.path("proposal").path("isError").asBoolean()).as(proposed.toString()).isFalse();
        String actionId = proposed.path("proposal").path("structured").path("actions").get(0).path("actionId")
                .asText();

        String executorToken = stack.bearer("acme", "alice", Audiences.EXECUTOR);
        String actionUrl = stack.executorUrl() + "/api/actions/" + actionId;
        await().atMost(Duration.ofSeconds(20)).until(() -> Http.get(actionUrl, executorToken).status() == 200);
        Http.Answer staged = Http.get(actionUrl, executorToken);
        assertThat(staged.body().path("status").asText()).isEqualTo("proposed");
        assertThat(Http.post(actionUrl + "/confirm", executorToken,
                Map.of("paramsHash", staged.body().path("paramsHash").asText())).status()).isEqualTo(200);

        JsonNode outcome = sdkClient(redirectPort, "outcome", actionId);
        assertThat(outcome.path("signIns").asInt()).isOne();
        assertThat(outcome.path("outcome").asText()).contains(actionId).contains("executed");
    }

    /** Runs deploy/mcp-e2e/client.mjs as alice and answers the JSON it prints. */
    private static JsonNode sdkClient(int redirectPort, String... command) throws Exception {
        Path directory = TestStacks.repositoryRoot().resolve("deploy/mcp-e2e");
        assertThat(directory.resolve("node_modules/@modelcontextprotocol/sdk"))
                .as("npm ci --prefix deploy/mcp-e2e (.ci/run does)").isDirectory();
        List<String> arguments = new java.util.ArrayList<>(List.of("node", "client.mjs", stack.agentUrl() + "/mcp",
                "alice", LocalKeycloak.password("alice"), String.valueOf(redirectPort)));
        arguments.addAll(List.of(command));
        Path errors = Files.createTempFile("mcp-e2e", ".log");
        Process node = new ProcessBuilder(arguments).directory(directory.toFile())
                .redirectError(errors.toFile()).start();
        String printed = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean exited = node.waitFor(60, TimeUnit.SECONDS);
        assertThat(exited).isTrue();
        assertThat(node.exitValue()).as("the SDK client failed: %s", Files.readString(errors)).isZero();
        return Json.mapper().readTree(printed);
    }

    @Test
    void aTokenForAnotherAudienceIsRefusedAndAnotherTenantsWalletIsNotOffered() throws Exception {
        assertThat(rpc(stack.bearer("acme", "alice", Audiences.AGENT), null, initialize()).status()).isEqualTo(401);
        assertThat(rpc(stack.bearer("acme", "alice", Audiences.EXECUTOR), null, initialize()).status())
                .isEqualTo(401);

        String token = stack.bearer("acme", "alice", Audiences.MCP);
        String session = session(token);
        Map<String, Object> intoGlobex = new LinkedHashMap<>();
        intoGlobex.put("wallet", "Operating");
        intoGlobex.put("amount", "1.00");
        intoGlobex.put("category", "coffee");
        JsonNode refused = call(token, session, "propose_expense", intoGlobex);
        assertThat(refused.path("result").path("isError").asBoolean()).as(refused.toString()).isTrue();
        assertThat(refused.path("result").has("structuredContent")).isFalse();
        assertThat(List.of(refused.path("result").path("content").get(0).path("text").asText()))
                .allSatisfy(text -> assertThat(text).startsWith("Refused, nothing was done"));

        Map<String, Object> withAStatus = new LinkedHashMap<>(Map.of("wallet", "Checking", "amount", "1.00",
                "category", "coffee", "status", "executed"));
        Map<String, Object> oversized = new LinkedHashMap<>(Map.of("wallet", "Checking", "amount", "1.00",
                "category", "coffee", "description", "x".repeat(5_000)));
        for (Map<String, Object> hostile : List.of(withAStatus, oversized)) {
            JsonNode answer = call(token, session, "propose_expense", hostile);
            assertThat(answer.path("result").path("isError").asBoolean()).as(answer.toString()).isTrue();
            assertThat(answer.path("result").has("structuredContent")).isFalse();
        }
    }

    /**
     * An MCP client that proposes without end, in a tenant whose agent writes are enabled (so a chat turn's small
     * expense would apply on arrival): each of its 100 small expenses is staged and waits for a person, none applied,
     * nothing written to the ledger.
     */
    @Test
    void aClientProposingWithoutEndGetsNothingApplied() throws Exception {
        TwoAdministrators.set(stack.executorUrl(), stack.bearer("acme", "alice", Audiences.EXECUTOR),
                stack.bearer("acme", "bob", Audiences.EXECUTOR), "agent-writes", Map.of("mode", "enabled"));
        // Bob, so that alice's recent actions (pending_actions shows 20) stay the other tests'.
        String token = stack.bearer("acme", "bob", Audiences.MCP);
        String session = session(token);
        String marker = "endless-" + java.util.UUID.randomUUID();
        Map<String, Object> expense = new LinkedHashMap<>(Map.of("wallet", "Checking", "amount", "1.00",
                "category", "coffee", "description", marker));
        List<String> actionIds = new java.util.ArrayList<>();
        for (int call = 0; call < 100; call++) {
            JsonNode answer = call(token, session, "propose_expense", expense);
            assertThat(answer.path("result").path("isError").asBoolean()).as(answer.toString()).isFalse();
            actionIds.add(answer.path("result").path("structuredContent").path("actions").get(0).path("actionId")
                    .asText());
        }

        String executorToken = stack.bearer("acme", "bob", Audiences.EXECUTOR);
        for (String actionId : actionIds) {
            String actionUrl = stack.executorUrl() + "/api/actions/" + actionId;
            await().atMost(Duration.ofSeconds(30)).until(() -> Http.get(actionUrl, executorToken).status() == 200);
            assertThat(Http.get(actionUrl, executorToken).body().path("status").asText()).isEqualTo("proposed");
        }
        Http.Answer ledger = Http.get(stack.agentUrl() + "/api/wallets/" + LocalStack.ACME_CHECKING
                + "/transactions", stack.bearer("acme", "alice", Audiences.AGENT));
        assertThat(ledger.text()).doesNotContain(marker);
    }
}
