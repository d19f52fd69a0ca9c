package dev.countersign.localstack;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static dev.countersign.devsupport.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.parallel.ResourceLock;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.APIResponse;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.assertions.PlaywrightAssertions;
import com.microsoft.playwright.options.AriaRole;
import com.microsoft.playwright.options.RequestOptions;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.LocalKeycloak;

/**
 * Second-device approvals end to end (issue 45, docs/approvals.md): the real Keycloak's CIBA, the approval device
 * (deploy/approval-device) Keycloak's HTTP channel posts to, and the executor that starts each request and polls for
 * its answer. The approver is erin, whose {@code sub} is not her username (Keycloak's {@code login_hint} is the
 * username; the device and the executor match by {@code sub}). She signs in at the device once, in a browser, and
 * answers through the device's own API with that session (the same calls its page makes), but in the last test, which
 * clicks.
 * <p>
 * One request is left unanswered from the start and checked last, so that waiting for its expiry costs no time of its
 * own. On the shared stack with Keycloak (McpIT's), which it takes alone ({@link SharedStacks#KEYCLOAK_LOCK}): it kills
 * that stack's executor and starts it again.
 */
@ResourceLock(SharedStacks.KEYCLOAK_LOCK)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecondDeviceIT {

    private static final Path SCREENSHOTS = Path.of("target", "screenshots");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    /** Each wait here asks a service over HTTP: a quarter second apart, not the tests' default 25 ms. */
    private static final Duration POLL = Duration.ofMillis(250);

    private static LocalStack stack;
    private static Playwright playwright;
    private static Browser browser;
    /** erin's browser, signed in at the approval device. */
    private static BrowserContext erinsDevice;
    /** Staged first and never answered; checked last. */
    private static ExpenseProposal unanswered;

    @BeforeAll
    static void startTheStackTheDeviceAndErinsSession() throws Exception {
        // Requests live SharedStacks.REQUEST_EXPIRY (30 s): enough for an executor restart in between.
        stack = SharedStacks.withKeycloak();
        // erin (an approver) and dave (no approver) both choose to be asked on their second device.
        optIn("erin");
        optIn("dave");
        playwright = HeadlessChromium.playwright();
        browser = HeadlessChromium.launch(playwright);
        // As WebUiIT: a page's first answers after an executor restart, on a loaded machine, may take seconds.
        PlaywrightAssertions.setDefaultAssertionTimeout(15_000);
        Files.createDirectories(SCREENSHOTS);
        erinsDevice = browser.newContext(new Browser.NewContextOptions().setViewportSize(480, 900));
        Page device = erinsDevice.newPage();
        device.navigate(stack.deviceUrl() + "/");
        signInAtKeycloak(device, "erin");
        assertThat(device.locator("#who")).hasText("Signed in as erin");

        unanswered = stage("930.00");
        awaitOnErinsDevice(codeOf(unanswered));
    }

    @AfterAll
    static void stopEverything() {
        if (browser != null) {
            browser.close();
        }
        if (playwright != null) {
            playwright.close();
        }
    }

    @Test
    @Order(1)
    void erinApprovesOnHerDeviceAndTheActionRunsOnceInHerNameAndDaveIsAskedNothing() throws Exception {
        ExpenseProposal proposal = stage("900.00");
        String code = codeOf(proposal);

        JsonNode request = awaitOnErinsDevice(code);
        // What the device shows comes from the executor: the action's own headline and parameters hash.
        assertThat(request.path("action").path("actionId").asText()).isEqualTo(proposal.id().toString());
        assertThat(request.path("action").path("action").path("paramsHash").asText())
                .isEqualTo(proposal.paramsHash());
        // dave may not decide it (no approver, not the wallet's owner): nothing was planned for him, in the very
        // transaction that planned erin's request.
        assertThat(count("SELECT count(*) FROM notifications WHERE tenant_id = ? AND action_id = '" + proposal.id()
                + "' AND recipient = 'dave'")).isZero();

        // Only erin's device session sees it: dave, signed in at the device, is shown nothing of hers.
        BrowserContext daves = browser.newContext();
        try {
            Page device = daves.newPage();
            device.navigate(stack.deviceUrl() + "/");
            signInAtKeycloak(device, "dave");
            assertThat(device.locator("#who")).hasText("Signed in as dave");
            APIResponse seen = daves.request().get(stack.deviceUrl() + "/api/requests");
            assertThat(seen.status()).isEqualTo(200);
            assertThat(seen.text()).isEqualTo("[]");
            assertThat(daves.request().post(stack.deviceUrl() + "/api/requests/" + request.path("id").asText()
                    + "/approve", RequestOptions.create().setHeader("X-Requested-With", "countersign-approval-device"))
                    .status()).isEqualTo(404);
        } finally {
            daves.close();
        }
        // An answer without the device's own header (another site's form could send one without it) is refused.
        assertThat(erinsDevice.request().post(stack.deviceUrl() + "/api/requests/" + request.path("id").asText()
                + "/approve").status()).isEqualTo(403);
        // Only Keycloak puts a request on the device: a channel post without its signed token is refused.
        Http.Answer forged = Http.post(stack.deviceUrl() + "/channel", "not-a-keycloak-token",
                Map.of("login_hint", "erin", "binding_message", code, "scope", "openid"));
        assertThat(forged.status()).isEqualTo(401);
        // A prompt the executor did not start for erin (here the executor's own client, used by hand, under a code the
        // executor never issued; as a prompt Keycloak delivered to the wrong person would be) can only be dismissed.
        startAsTheExecutorsClient("erin", "NOT-ISSUED");
        JsonNode stray = await().pollInterval(POLL).atMost(Duration.ofSeconds(30)).until(() -> {
            for (JsonNode one : Json.mapper().readTree(erinsDevice.request().get(stack.deviceUrl() + "/api/requests")
                    .text())) {
                if ("NOT-ISSUED".equals(one.path("code").asText())) {
                    return one;
                }
            }
            return null;
        }, found -> found != null);
        assertThat(stray.path("action").isNull()).isTrue();
        assertThat(answer(stray, "approve").status()).isEqualTo(409);
        assertThat(answer(stray, "deny").status()).isEqualTo(409);
        assertThat(answer(stray, "dismiss").status()).isEqualTo(204);

        assertThat(answer(request, "approve").status()).isEqualTo(204);

        awaitStatus(proposal, "executed");
        assertThat(history(proposal, "executed")).isEqualTo(LocalKeycloak.ERIN_SUB + " via ciba");
        assertThat(count("SELECT count(*) FROM transactions WHERE tenant_id = ? AND source_action_id = '"
                + proposal.id() + "'")).isEqualTo(1);
        assertThat(requestState(proposal)).isEqualTo("approved");
        // Answered once: the device holds it no more.
        assertThat(answer(request, "approve").status()).isEqualTo(404);
    }

    @Test
    @Order(2)
    void aDenialOnTheDeviceCancelsTheActionInHerName() throws Exception {
        ExpenseProposal proposal = stage("910.00");

        assertThat(answer(awaitOnErinsDevice(codeOf(proposal)), "deny").status()).isEqualTo(204);

        awaitStatus(proposal, "cancelled");
        assertThat(history(proposal, "cancelled")).isEqualTo(LocalKeycloak.ERIN_SUB + " via ciba");
        assertThat(requestState(proposal)).isEqualTo("denied");
    }

    @Test
    @Order(3)
    void requestsOutliveAnExecutorKilledWhileTheyWaitAndATokenTakenFromKeycloakOpensNothing() throws Exception {
        ExpenseProposal taken = stage("920.00");
        ExpenseProposal stolen = stage("921.00");
        JsonNode takenRequest = awaitOnErinsDevice(codeOf(taken));
        JsonNode stolenRequest = awaitOnErinsDevice(codeOf(stolen));

        stack.killExecutor(0);
        // Someone with the executor's client secret and a copy of its database will poll for the second one before the
        // executor does: its next poll is held off, around the application, while no executor runs.
        execute("UPDATE second_device_requests SET next_poll_at = now() + interval '1 hour' WHERE tenant_id = ?"
                + " AND action_id = '" + stolen.id() + "'");
        stack.restartExecutor(0, Map.of());

        assertThat(answer(takenRequest, "approve").status()).isEqualTo(204);
        // The restarted executor took up polling where the killed one stopped.
        awaitStatus(taken, "executed");
        assertThat(history(taken, "executed")).isEqualTo(LocalKeycloak.ERIN_SUB + " via ciba");

        assertThat(answer(stolenRequest, "approve").status()).isEqualTo(204);
        String token = pollAsTheExecutorsClient(authReqIdOf(stolen));
        // The token Keycloak issued for that approval is for an audience no endpoint takes as a bearer token: not on
        // the action it approved, nor on another one.
        for (ExpenseProposal target : new ExpenseProposal[]{stolen, stage("922.00")}) {
            assertThat(Http.post(stack.executorUrl() + "/api/actions/" + target.id() + "/confirm", token,
                    Map.of("paramsHash", target.paramsHash())).status()).isEqualTo(401);
        }
        assertThat(Http.get(stack.executorUrl() + "/api/actions", token).status()).isEqualTo(401);
        // Keycloak issues an approval's token once: the executor's own poll now gets invalid_grant, the request ends
        // and the action waits for a person.
        execute("UPDATE second_device_requests SET next_poll_at = now() WHERE tenant_id = ? AND action_id = '"
                + stolen.id() + "'");
        await().pollInterval(POLL).atMost(Duration.ofSeconds(30)).until(() -> "ended".equals(requestState(stolen)));
        assertThat(status(stolen)).isEqualTo("proposed");
        assertThat(text("SELECT outcome FROM second_device_requests WHERE tenant_id = ? AND action_id = '"
                + stolen.id() + "'")).isEqualTo("the identity provider answered invalid_grant");
    }

    @Test
    @Order(4)
    void theDevicePageShowsTheCodeTheDecisionPageShowsAndItsApproveButtonDecides() throws Exception {
        ExpenseProposal proposal = stage("940.00");
        String code = codeOf(proposal);
        awaitOnErinsDevice(code);

        // erin at her desk: the decision page shows her the code of her own request.
        BrowserContext desk = browser.newContext(new Browser.NewContextOptions().setViewportSize(1280, 900));
        try {
            Page decisionPage = desk.newPage();
            decisionPage.navigate(stack.executorUrl() + "/decide/?action=" + proposal.id());
            signInAtKeycloak(decisionPage, "erin");
            Locator card = decisionPage.locator("#focused-card article.card[data-action-id='" + proposal.id() + "']");
            assertThat(card).hasAttribute("data-status", "proposed");
            assertThat(card.locator(".second-device")).containsText("Second-device code: " + code);
            // Told by username, though erin's user id (her sub) is not one.
            assertThat(card.locator(".told")).containsText("erin (second device)");
            card.screenshot(new Locator.ScreenshotOptions().setPath(SCREENSHOTS.resolve("decision-second-device.png")));

            Page device = erinsDevice.pages().get(0);
            Locator request = device.locator("li.request[data-code='" + code + "']");
            assertThat(request.locator(".code")).containsText(code);
            assertThat(request.locator(".headline")).containsText("940");
            request.screenshot(new Locator.ScreenshotOptions().setPath(SCREENSHOTS.resolve("approval-device.png")));

            request.getByRole(AriaRole.BUTTON, new Locator.GetByRoleOptions().setName("Approve")).click();

            assertThat(request).hasCount(0);
            awaitStatus(proposal, "executed");
            assertThat(card).hasAttribute("data-status", "executed");
        } finally {
            desk.close();
        }
    }

    @Test
    @Order(5)
    void aRequestNobodyAnswersExpiresAndLeavesItsActionAsItWas() throws Exception {
        await().pollInterval(POLL).atMost(Duration.ofSeconds(90))
                .until(() -> "expired".equals(requestState(unanswered)));
        assertThat(status(unanswered)).isEqualTo("proposed");
        assertThat(count("SELECT count(*) FROM transactions WHERE tenant_id = ? AND source_action_id = '"
                + unanswered.id() + "'")).isZero();
    }

    // ---- helpers ----

    private static void optIn(String user) throws Exception {
        Http.Answer answer = Http.put(stack.executorUrl() + "/api/me/notifications",
                stack.bearer("acme", user, Audiences.EXECUTOR),
                Map.of("email", false, "webhook", false, "secondDevice", true));
        assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    }

    /** A HIGH expense of alice's in her Checking wallet, proposed as the agent proposes it, and staged. */
    private static ExpenseProposal stage(String amount) throws Exception {
        ExpenseProposal proposal = ExpenseProposal.of("acme", "alice", LocalStack.ACME_CHECKING,
                new BigDecimal(amount), "rent", "second device " + amount, "c-sd-" + UUID.randomUUID());
        try (var producer = BenchmarkSupport.agentLikeProducer(stack.bootstrapServers())) {
            producer.send(AgentEvidence.proposal(proposal, stack.bearer("acme", "alice", Audiences.AGENT))).get();
        }
        awaitStatus(proposal, "proposed");
        return proposal;
    }

    /** The code of erin's request about the action, as the executor tells her, once the request was sent. */
    private static String codeOf(ExpenseProposal proposal) {
        String erin = stack.bearer("acme", "erin", Audiences.EXECUTOR);
        return await().pollInterval(POLL).atMost(Duration.ofSeconds(30)).until(() -> {
            Http.Answer answer = Http.get(stack.executorUrl() + "/api/actions/" + proposal.id() + "/deciders", erin);
            return answer.status() == 200 ? answer.body().path("secondDeviceCode").asText(null) : null;
        }, code -> code != null);
    }

    /** The request with {@code code} on erin's device, once Keycloak posted it there and the executor vouches. */
    private static JsonNode awaitOnErinsDevice(String code) {
        return await().pollInterval(POLL).atMost(Duration.ofSeconds(30)).until(() -> {
            APIResponse response = erinsDevice.request().get(stack.deviceUrl() + "/api/requests");
            if (response.status() != 200) {
                return null;
            }
            for (JsonNode one : Json.mapper().readTree(response.text())) {
                if (code.equals(one.path("code").asText()) && !one.path("action").isNull()) {
                    return one;
                }
            }
            return null;
        }, found -> found != null);
    }

    /** Approves or denies through the device's API, as its page does. */
    private static APIResponse answer(JsonNode request, String what) {
        return erinsDevice.request().post(stack.deviceUrl() + "/api/requests/" + request.path("id").asText() + "/"
                + what, RequestOptions.create().setHeader("X-Requested-With", "countersign-approval-device"));
    }

    private static void signInAtKeycloak(Page on, String user) {
        assertThat(on.locator("#username")).isVisible();
        on.locator("#username").fill(user);
        on.locator("#password").fill(LocalKeycloak.password(user));
        on.locator("#kc-login").click();
    }

    private static void awaitStatus(ExpenseProposal proposal, String wanted) {
        await().pollInterval(POLL).atMost(Duration.ofSeconds(45)).until(() -> wanted.equals(status(proposal)));
    }

    private static String status(ExpenseProposal proposal) throws SQLException {
        return text("SELECT status FROM actions WHERE tenant_id = ? AND id = '" + proposal.id() + "'");
    }

    private static String requestState(ExpenseProposal proposal) throws SQLException {
        return text("SELECT state FROM second_device_requests WHERE tenant_id = ? AND action_id = '" + proposal.id()
                + "' AND user_id = '" + LocalKeycloak.ERIN_SUB + "'");
    }

    private static String authReqIdOf(ExpenseProposal proposal) throws SQLException {
        return text("SELECT auth_req_id FROM second_device_requests WHERE tenant_id = ? AND action_id = '"
                + proposal.id() + "'");
    }

    private static String history(ExpenseProposal proposal, String toStatus) throws SQLException {
        return text("SELECT actor || ' via ' || channel FROM action_history WHERE tenant_id = ? AND action_id = '"
                + proposal.id() + "' AND to_status = '" + toStatus + "'");
    }

    private static void execute(String sql) throws SQLException {
        try (var owner = stack.ownerConnection(); var statement = owner.prepareStatement(sql)) {
            statement.setString(1, "acme");
            statement.executeUpdate();
        }
    }

    private static long count(String sql) throws SQLException {
        return StackAccess.count(stack, sql, "acme");
    }

    private static String text(String sql) throws SQLException {
        try (var owner = stack.ownerConnection(); var query = owner.prepareStatement(sql)) {
            query.setString(1, "acme");
            try (var rows = query.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    /** A backchannel authentication request at Keycloak with the executor's client, for {@code user}. */
    private static void startAsTheExecutorsClient(String user, String code) throws IOException, InterruptedException {
        String form = "scope=openid&login_hint=" + URLEncoder.encode(user, StandardCharsets.UTF_8)
                + "&binding_message=" + URLEncoder.encode(code, StandardCharsets.UTF_8);
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                URI.create(stack.keycloak().issuer() + "/protocol/openid-connect/ext/ciba/auth"))
                .header("Authorization", "Basic " + executorsClient())
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    private static String executorsClient() {
        return Base64.getEncoder().encodeToString((LocalKeycloak.SECOND_DEVICE_CLIENT + ":"
                + LocalKeycloak.SECOND_DEVICE_CLIENT_SECRET).getBytes(StandardCharsets.UTF_8));
    }

    /** The CIBA grant at Keycloak's token endpoint with the executor's client: the access token, once approved. */
    private static String pollAsTheExecutorsClient(String authReqId) throws IOException, InterruptedException {
        String form = "grant_type=" + URLEncoder.encode("urn:openid:params:grant-type:ciba", StandardCharsets.UTF_8)
                + "&auth_req_id=" + URLEncoder.encode(authReqId, StandardCharsets.UTF_8);
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                URI.create(stack.keycloak().issuer() + "/protocol/openid-connect/token"))
                .header("Authorization", "Basic " + executorsClient())
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Json.mapper().readTree(response.body()).get("access_token").asText();
    }
}
