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
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.assertions.LocatorAssertions;
import com.microsoft.playwright.assertions.PlaywrightAssertions;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.LocalKeycloak;
import dev.countersign.devsupport.testing.McpAnswers;
import dev.countersign.devsupport.testing.fuzz.FuzzRun;
import dev.countersign.devsupport.testing.fuzz.HostileValues;

/**
 * The MCP server against the real Keycloak (docs/adr/0008): the sign-in a client discovers (401, protected resource
 * metadata naming Keycloak), then with a token for the MCP audience the person's reads, and a proposal that reaches the
 * executor through the evidence Keycloak exchanged for it, waits there, and is executed once a person confirms it.
 * Spoken in plain JSON-RPC over HTTP, and by the official TypeScript SDK as a person's MCP client would.
 */
@ResourceLock(SharedStacks.KEYCLOAK_LOCK)
class McpIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final HttpClient FUZZ_HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static LocalStack stack;

    @BeforeAll
    static void startTheStackWithKeycloak() throws IOException {
        stack = SharedStacks.withKeycloak();
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
        String json = McpAnswers.json(response.body());
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
        // The scope a client registers with and asks for (LocalKeycloak.MCP_SCOPE): the pre-registered client may ask
        // for it too.
        assertThat(metadata.body().path("scopes_supported").toString())
                .isEqualTo("[\"" + LocalKeycloak.MCP_SCOPE + "\"]");
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
        // Named by Keycloak in the exchanged evidence (deploy/keycloak-extension), not by the agent.
        assertThat(staged.body().path("mcpClient").asText()).isEqualTo(LocalKeycloak.TEST_MCP_CLIENT);

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
     * code flow with PKCE at Keycloak's login form, lists the tools, reads, proposes; the person follows the link the
     * answer gave to the decision page in a browser, sees the card with the MCP client named and confirms it there; the
     * client reads the outcome through MCP.
     */
    @Test
    void anMcpClientNobodyHereWroteSignsInProposesAndReadsTheOutcome() throws Exception {
        int redirectPort = TestStacks.freePort();
        stack.keycloak().allowRedirectUri(LocalKeycloak.MCP_CLIENT, "http://127.0.0.1:" + redirectPort + "/callback");

        JsonNode proposed = sdkClient(LocalKeycloak.MCP_CLIENT, redirectPort, "propose");

        assertThat(proposed.path("signIns").asInt()).isOne();
        assertThat(proposed.path("consented").asBoolean()).as("the realm's own client asks no consent").isFalse();
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

        String decisionPage = proposed.path("proposal").path("structured").path("actions").get(0)
                .path("decisionPage").asText();
        assertThat(decisionPage).isEqualTo(stack.executorUrl() + "/decide/?action=" + actionId);
        confirmInTheBrowser(decisionPage, actionId, "alice", LocalKeycloak.MCP_CLIENT);

        JsonNode outcome = sdkClient(LocalKeycloak.MCP_CLIENT, redirectPort, "outcome", actionId);
        assertThat(outcome.path("signIns").asInt()).isOne();
        assertThat(outcome.path("outcome").asText()).startsWith("Action " + actionId).contains("executed");
        assertThat(outcome.path("resourceTemplates").get(0).asText()).isEqualTo("countersign://actions/{actionId}");
        assertThat(outcome.path("resource").asText()).startsWith("Action " + actionId).contains("executed");
    }

    /**
     * A client no one registered for it (dynamic client registration, RFC 7591): the SDK is given the server's URL
     * only, registers itself at the endpoint Keycloak's metadata names with the scope the server's metadata names,
     * signs in (the person agrees on Keycloak's consent screen) and proposes. The executor names the client Keycloak
     * registered it as, and the proposal waits for a person.
     */
    @Test
    void anMcpClientThatRegistersItselfIsNamedByItsRegisteredId() throws Exception {
        JsonNode proposed = sdkClient("register", TestStacks.freePort(), "propose");

        String registered = proposed.path("clientId").asText();
        assertThat(registered).isNotBlank().isNotEqualTo(LocalKeycloak.MCP_CLIENT);
        assertThat(proposed.path("signIns").asInt()).isOne();
        assertThat(proposed.path("consented").asBoolean()).as("asked on Keycloak's consent screen").isTrue();
        assertThat(proposed.path("proposal").path("isError").asBoolean()).as(proposed.toString()).isFalse();
        String actionId = proposed.path("proposal").path("structured").path("actions").get(0).path("actionId")
                .asText();
        String executorToken = stack.bearer("acme", "alice", Audiences.EXECUTOR);
        String actionUrl = stack.executorUrl() + "/api/actions/" + actionId;
        await().atMost(Duration.ofSeconds(20)).until(() -> Http.get(actionUrl, executorToken).status() == 200);
        Http.Answer staged = Http.get(actionUrl, executorToken);
        assertThat(staged.body().path("status").asText()).isEqualTo("proposed");
        assertThat(staged.body().path("requestedBy").asText()).isEqualTo("alice");
        assertThat(staged.body().path("mcpClient").asText()).isEqualTo(registered);
    }

    /**
     * Opens the decision page at {@code link} in a fresh browser, signs in at Keycloak's form as {@code user}, checks
     * that the card names the MCP client, and confirms it with one click.
     */
    private static void confirmInTheBrowser(String link, String actionId, String user, String mcpClient) {
        try (Playwright playwright = HeadlessChromium.playwright();
                Browser browser = HeadlessChromium.launch(playwright)) {
            Page page = browser.newContext().newPage();
            page.navigate(link);
            page.locator("#username").fill(user);
            page.locator("#password").fill(LocalKeycloak.password(user));
            page.locator("#kc-login").click();

            Locator card = page.locator("#focused-card article.card[data-action-id='" + actionId + "']");
            PlaywrightAssertions.assertThat(card).hasAttribute("data-status", "proposed",
                    new LocatorAssertions.HasAttributeOptions().setTimeout(20_000));
            PlaywrightAssertions.assertThat(card.locator("dl.facts")).containsText(
                    "the MCP client " + mcpClient);
            PlaywrightAssertions.assertThat(card.locator("table.diff")).containsText("12.5");
            card.locator("button.confirm").click();
            PlaywrightAssertions.assertThat(card).hasAttribute("data-status", "executed",
                    new LocatorAssertions.HasAttributeOptions().setTimeout(20_000));
            PlaywrightAssertions.assertThat(card.locator(".status")).containsText("Executed: confirmed by " + user);
        }
    }

    /**
     * Runs deploy/mcp-e2e/client.mjs as alice through {@code client} (a client id, or {@code register}) and answers the
     * JSON it prints.
     */
    private static JsonNode sdkClient(String client, int redirectPort, String... command) throws Exception {
        Path directory = TestStacks.repositoryRoot().resolve("deploy/mcp-e2e");
        assertThat(directory.resolve("node_modules/@modelcontextprotocol/sdk"))
                .as("npm ci --prefix deploy/mcp-e2e (.ci/run does)").isDirectory();
        List<String> arguments = new java.util.ArrayList<>(List.of("node", "client.mjs", stack.agentUrl() + "/mcp",
                client, "alice", LocalKeycloak.password("alice"), String.valueOf(redirectPort)));
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

        // Carol's action in globex: alice reads it as she reads an id nobody used, by the tool and as a resource.
        String carols = stack.bearer("globex", "carol", Audiences.MCP);
        JsonNode carolProposed = call(carols, session(carols), "propose_expense", Map.of("wallet", "Operating",
                "amount", "3.00", "category", "coffee"));
        String carolsAction = carolProposed.path("result").path("structuredContent").path("actions").get(0)
                .path("actionId").asText();
        await().atMost(Duration.ofSeconds(20)).until(() -> actionsDescribed(null, carolsAction) == 1);
        for (String id : List.of(carolsAction, java.util.UUID.randomUUID().toString())) {
            JsonNode status = call(token, session, "action_status", Map.of("actionId", id));
            assertThat(status.path("result").path("content").get(0).path("text").asText())
                    .isEqualTo("The user has no action " + id + ".");
            Answer read = rpc(token, session, Map.of("jsonrpc", "2.0", "id", 9, "method", "resources/read",
                    "params", Map.of("uri", "countersign://actions/" + id)));
            assertThat(read.message().path("error").path("code").asInt()).as(read.message().toString())
                    .isEqualTo(-32002);
            assertThat(read.message().toString()).doesNotContain("Operating").doesNotContain("3.00");
        }
    }

    /**
     * A token that expired after the session opened is refused with the bearer challenge, and its call proposes
     * nothing: a proposal sent after it with a live token is staged, the expired one's is not.
     */
    @Test
    void anExpiredTokenIsRefusedAndProposesNothing() throws Exception {
        String shortLived = stack.keycloak().shortLivedMcpBearer("alice");
        String session = session(shortLived);
        long expiresAt = Json.mapper()
                .readTree(java.util.Base64.getUrlDecoder().decode(shortLived.split("\\.")[1])).path("exp").asLong();
        await().atMost(Duration.ofSeconds(15))
                .until(() -> java.time.Instant.now().getEpochSecond() > expiresAt + 1);
        String expiredMarker = "expired-" + java.util.UUID.randomUUID();

        Answer refused = rpc(shortLived, session, Map.of("jsonrpc", "2.0", "id", 7, "method", "tools/call", "params",
                Map.of("name", "propose_expense", "arguments", Map.of("wallet", "Checking", "amount", "1.00",
                        "category", "coffee", "description", expiredMarker))));

        assertThat(refused.status()).isEqualTo(401);
        assertThat(refused.challenge()).startsWith("Bearer error=\"invalid_token\"")
                .contains("resource_metadata=\"" + stack.agentUrl() + "/.well-known/oauth-protected-resource/mcp\"");
        String live = stack.bearer("acme", "alice", Audiences.MCP);
        JsonNode after = call(live, session(live), "propose_expense", Map.of("wallet", "Checking", "amount", "1.00",
                "category", "coffee", "description", "after-" + expiredMarker));
        String afterId = after.path("result").path("structuredContent").path("actions").get(0).path("actionId")
                .asText();
        await().atMost(Duration.ofSeconds(20)).until(() -> actionsDescribed("after-" + expiredMarker) == 1);
        assertThat(afterId).isNotBlank();
        assertThat(actionsDescribed(expiredMarker)).isZero();
    }

    private static int actionsDescribed(String description) throws Exception {
        return actionsDescribed(description, null);
    }

    /** How many actions the database holds with this description, or this id (as the owner, every tenant's). */
    private static int actionsDescribed(String description, String id) throws Exception {
        try (Connection owner = stack.ownerConnection();
                PreparedStatement query = owner.prepareStatement(
                        "SELECT count(*) FROM actions WHERE params->>'description' = ? OR id::text = ?")) {
            query.setString(1, description);
            query.setString(2, id);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    /**
     * The fuzz suite's hostile values (dev-support's HostileValues, a recorded seed) sent through MCP, as a compromised
     * or careless client would: every tool called with generated arguments (each declared one given a hostile value,
     * sometimes a status field or no object at all), and actions read by generated URIs. Each answer is a JSON-RPC
     * answer (a tool result or an error with a code of the MCP mapping) or an HTTP refusal, never a server error; and
     * nothing dave proposed is applied, nor written to the ledger.
     */
    @Test
    void generatedHostileCallsAreAnsweredAndApplyNothing() throws Exception {
        FuzzRun run = FuzzRun.fromSystemProperties("McpIT");
        HostileValues hostile = new HostileValues(run.randomFor("mcp"), 64 * 1024);
        int perTool = Math.max(1, Math.min(run.inputs(), 12));
        String token = stack.bearer("acme", "dave", Audiences.MCP);
        String session = session(token);
        List<JsonNode> tools = new java.util.ArrayList<>();
        rpc(token, session, Map.of("jsonrpc", "2.0", "id", 3, "method", "tools/list")).message().path("result")
                .path("tools").forEach(tools::add);
        assertThat(tools).hasSizeGreaterThan(5);
        List<String> failures = new java.util.ArrayList<>();
        int sent = 0;
        for (JsonNode tool : tools) {
            for (int input = 0; input < perTool; input++) {
                String arguments = hostileArguments(hostile, tool.path("inputSchema").path("properties"));
                String message = "{\"jsonrpc\":\"2.0\",\"id\":" + (++sent) + ",\"method\":\"tools/call\","
                        + "\"params\":{\"name\":" + HostileValues.quote(tool.path("name").asText())
                        + ",\"arguments\":" + arguments + "}}";
                judge(rawRpc(token, session, message), tool.path("name").asText(), failures);
            }
        }
        for (int input = 0; input < perTool * 2; input++) {
            String uri = hostile.chance(0.5)
                    ? "countersign://actions/" + hostile.string()
                    : hostile.string();
            String message = "{\"jsonrpc\":\"2.0\",\"id\":" + (++sent)
                    + ",\"method\":\"resources/read\",\"params\":{\"uri\":" + HostileValues.quote(uri) + "}}";
            judge(rawRpc(token, session, message), "resources/read", failures);
        }

        assertThat(failures).as("answers that were a server error or no JSON-RPC answer, %s", run.replay())
                .isEmpty();
        System.out.printf("McpIT: %d generated MCP calls, %s%n", sent, run.replay());
        try (Connection owner = stack.ownerConnection();
                PreparedStatement applied = owner.prepareStatement("SELECT count(*) FROM actions a"
                        + " WHERE a.tenant_id = 'acme' AND a.requested_by = 'dave' AND a.status <> 'proposed'");
                PreparedStatement written = owner.prepareStatement("SELECT count(*) FROM transactions t"
                        + " JOIN actions a ON a.id = t.source_action_id WHERE a.requested_by = 'dave'");
                ResultSet appliedRows = applied.executeQuery();
                ResultSet writtenRows = written.executeQuery()) {
            appliedRows.next();
            writtenRows.next();
            assertThat(appliedRows.getInt(1)).as("dave's actions not waiting for a person, %s", run.replay()).isZero();
            assertThat(writtenRows.getInt(1)).as("ledger rows of dave's actions, %s", run.replay()).isZero();
        }
    }

    /** An arguments value for a tool: its declared members with hostile values, now and then something else. */
    private static String hostileArguments(HostileValues hostile, JsonNode properties) {
        if (hostile.chance(0.1)) {
            return hostile.value(2);
        }
        List<String> members = new java.util.ArrayList<>();
        properties.fieldNames().forEachRemaining(name -> {
            if (!hostile.chance(0.2)) {
                members.add(HostileValues.quote(name) + ":" + hostile.value(1));
            }
        });
        if (hostile.chance(0.2)) {
            members.add("\"status\":\"executed\"");
        }
        return "{" + String.join(",", members) + "}";
    }

    private record RawAnswer(int status, String body) {
    }

    /**
     * One message over HTTP/1.1 (the JDK client's HTTP/2 upgrade ended in GOAWAY on a refused body). A body over the
     * agent's limit may be answered 413 and the connection closed while it is still being sent: that is the refusal.
     */
    private static RawAnswer rawRpc(String token, String session, String message) throws Exception {
        try {
            return send(token, session, message);
        } catch (IOException closed) {
            if (message.length() > 256 * 1024) {
                return new RawAnswer(413, "");
            }
            throw closed;
        }
    }

    private static RawAnswer send(String token, String session, String message) throws Exception {
        HttpResponse<String> response = FUZZ_HTTP.send(HttpRequest.newBuilder(URI.create(stack.agentUrl() + "/mcp"))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").header("Authorization", "Bearer " + token)
                .header("Mcp-Session-Id", session).POST(HttpRequest.BodyPublishers.ofString(message)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new RawAnswer(response.statusCode(), response.body());
    }

    /** A failure's description, added to {@code failures}, unless the answer is one the MCP server may give. */
    private static void judge(RawAnswer answer, String target, List<String> failures) {
        if (answer.status() == 400 || answer.status() == 413) {
            return; // refused before any tool ran: a malformed message, a body over AGENT_MAX_BODY_SIZE
        }
        if (answer.status() != 200) {
            failures.add(target + ": HTTP " + answer.status());
            return;
        }
        String body = answer.body();
        String json = McpAnswers.json(body);
        try {
            JsonNode message = Json.mapper().readTree(json);
            int code = message.path("error").path("code").asInt(0);
            boolean known = message.has("result") || List.of(-32700, -32600, -32601, -32602, -32002).contains(code)
            // -32603 for a refused caller (a limit, the identity provider or the ledger unavailable)
                    || code == -32603 && message.path("error").path("message").asText()
                            .matches("(rate_limited|upstream_unavailable|database_unavailable): .*");
            if (!known) {
                failures.add(target + ": " + json.substring(0, Math.min(json.length(), 300)));
            }
        } catch (IOException e) {
            failures.add(target + ": not JSON: " + body.substring(0, Math.min(body.length(), 200)));
        }
    }

    /**
     * An MCP client that proposes without end, in a tenant whose agent writes are enabled (so a chat turn's small
     * expense would apply on arrival): each of its 200 small expenses (the number) is staged and waits for a
     * person, none applied, nothing written to the ledger.
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
        for (int call = 0; call < 200; call++) {
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
