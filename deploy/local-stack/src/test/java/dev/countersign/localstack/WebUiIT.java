package dev.countersign.localstack;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.assertions.LocatorAssertions;
import com.microsoft.playwright.assertions.PlaywrightAssertions;
import com.microsoft.playwright.options.AriaRole;

import dev.countersign.contracts.Audiences;

/**
 * The web UI in headless Chromium (Debian's /usr/bin/chromium, driven by Playwright) against the whole local stack with
 * the offline demo model: a person signs in, chats, reads the card the executor staged, confirms, cancels, undoes,
 * reloads and still confirms, watches a proposal expire, and gets plan-mode statement and refusal cards. Every page
 * records Content-Security-Policy violations and script errors; any of them fails the test. Screenshots of the main
 * screens go to target/screenshots.
 */
class WebUiIT {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");
    /** Short decision windows, so one test can watch a proposal expire; the others decide well within it. */
    private static final String DECISION_WINDOW = "PT25S";

    private static LocalStack stack;
    private static Playwright playwright;
    private static Browser browser;

    private BrowserContext context;
    private Page page;
    private final List<String> problems = new ArrayList<>();

    @BeforeAll
    static void startTheStackAndTheBrowser() throws IOException {
        assertThat(CHROMIUM).as("Debian's chromium package (apt-get install chromium; .ci/run installs it)")
                .isExecutable();
        // Free ports for the mail and ticket stubs too, so another stack on this machine does not hold them.
        stack = LocalStack.start(TestStacks.withExecutors(1, Map.of("ACTIONS_MAX_TTL", DECISION_WINDOW,
                "SMTP_PORT", String.valueOf(TestStacks.freePort()),
                "TICKET_PORT", String.valueOf(TestStacks.freePort()))));
        playwright = Playwright.create(new Playwright.CreateOptions()
                .setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
        browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
                .setExecutablePath(CHROMIUM)
                .setHeadless(true)
                // Without the background-networking flags Chromium keeps calling out of this closed network.
                .setArgs(List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync")));
        PlaywrightAssertions.setDefaultAssertionTimeout(15_000);
        Files.createDirectories(SCREENSHOTS);
    }

    @AfterAll
    static void stopEverything() {
        if (browser != null) {
            browser.close();
        }
        if (playwright != null) {
            playwright.close();
        }
        if (stack != null) {
            stack.close();
        }
    }

    @BeforeEach
    void openAPage() {
        context = browser.newContext(new Browser.NewContextOptions().setViewportSize(1280, 900));
        // Runs before the page's own scripts (Playwright injects it; the page's CSP does not apply to it): every
        // violation the browser reports becomes a console error the test collects.
        context.addInitScript("document.addEventListener('securitypolicyviolation', e => console.error("
                + "'CSP violation: ' + e.violatedDirective + ' blocked ' + e.blockedURI));");
        page = context.newPage();
        page.onConsoleMessage(message -> {
            if ("error".equals(message.type()) && (message.text().contains("Content Security Policy")
                    || message.text().startsWith("CSP violation"))) {
                problems.add(message.text());
            }
        });
        page.onPageError(error -> problems.add("script error: " + error));
    }

    @AfterEach
    void noCspViolationNorScriptErrorNorShownFailure(TestInfo test) {
        try {
            if (test.getTestMethod().map(m -> !m.getName().startsWith("theCsp")).orElse(true)) {
                assertThat(problems).as("CSP violations and script errors").isEmpty();
            }
            if (test.getTestMethod().map(m -> !m.getName().contains("SignsOut")).orElse(true)) {
                // Nothing in these tests should have failed, so no error is on the page either.
                assertThat(page.locator("#alert")).isHidden();
                assertThat(page.locator(".card-error:visible")).hasCount(0);
            }
        } finally {
            context.close();
        }
    }

    @Test
    void aHighProposalIsConfirmedFromItsCardAndADoubleClickExecutesItOnce() throws Exception {
        signIn("acme", "alice");
        Locator card = ask("add a 620 rent expense to Checking");
        assertThat(card).hasAttribute("data-status", "proposed");
        assertThat(card.locator(".tier")).hasText("HIGH impact");
        assertThat(card.locator(".summary")).containsText("620");
        assertThat(card.locator(".countdown")).hasText(Pattern.compile("0:[0-2]\\d"));
        assertThat(card.locator("table.diff")).containsText("rent");
        assertThat(card.locator("table.diff")).containsText("Checking (" + LocalStack.ACME_CHECKING + ")");
        screenshot("proposal-card");
        AtomicInteger confirms = new AtomicInteger();
        page.onRequest(request -> {
            if ("POST".equals(request.method()) && request.url().endsWith("/confirm")) {
                confirms.incrementAndGet();
            }
        });

        confirmButton(card).dblclick();

        assertThat(card).hasAttribute("data-status", "executed");
        assertThat(confirms.get()).as("POST .../confirm requests the double click sent").isEqualTo(1);
        assertThat(card.locator(".card-error")).isHidden();
        assertThat(focusAfterDecision(card)).hasCount(1);
        assertThat(card.locator(".status")).containsText("Executed: confirmed by alice");
        assertThat(page.locator("#announcer")).containsText("Executed");
        screenshot("executed-card");
        String actionId = card.getAttribute("data-action-id");
        JsonNode history = Http.get(stack.executorUrl() + "/api/actions/" + actionId + "/history",
                executorToken("acme", "alice")).body();
        assertThat(history.findValuesAsText("to").stream().filter("executed"::equals)).hasSize(1);
        assertThat(ledgerRows(actionId)).isEqualTo(1);
    }

    @Test
    void aRenameShowsTheExecutorsDiffAndIsUndoneFromTheCard() throws Exception {
        signIn("acme", "alice");
        Locator card = ask("rename wallet Savings to Rainy day");
        assertThat(card).hasAttribute("data-status", "proposed");
        assertThat(card.locator(".tier")).hasText("MEDIUM impact");
        assertThat(card.locator("table.diff .before")).containsText("Savings");
        assertThat(card.locator("table.diff .after")).containsText("Rainy day");

        confirmButton(card).click();
        assertThat(card).hasAttribute("data-status", "executed");
        assertThat(focusAfterDecision(card)).hasCount(1);
        card.getByRole(AriaRole.BUTTON, new Locator.GetByRoleOptions().setName("Undo")).click();

        assertThat(card).hasAttribute("data-status", "undone");
        assertThat(card.locator(".status")).containsText("Undone by alice");
        assertThat(card.locator(".status")).isFocused();
        card.getByRole(AriaRole.BUTTON, new Locator.GetByRoleOptions().setName("Show history")).click();
        assertThat(card.locator(".history-table")).containsText("undone");
        screenshot("undone-card-with-history");
        JsonNode wallets = Http.get(stack.agentUrl() + "/api/wallets", agentToken("acme", "alice")).body();
        assertThat(wallets.findValuesAsText("name")).contains("Savings").doesNotContain("Rainy day");
    }

    @Test
    void aCancelledProposalIsShownCancelledAndNothingIsWritten() throws Exception {
        signIn("acme", "alice");
        Locator card = ask("add a 4.50 coffee expense to Checking");
        assertThat(card).hasAttribute("data-status", "proposed");
        assertThat(card.locator(".tier")).hasText("LOW impact");

        card.getByRole(AriaRole.BUTTON, new Locator.GetByRoleOptions().setName("Cancel")).click();

        assertThat(card).hasAttribute("data-status", "cancelled");
        assertThat(card.locator(".status")).containsText("nothing was written");
        assertThat(confirmButton(card)).isHidden();
        assertThat(ledgerRows(card.getAttribute("data-action-id"))).isZero();
    }

    @Test
    void afterAReloadTheCardIsStillConfirmableWithAFreshToken() throws Exception {
        signIn("acme", "alice");
        Locator card = ask("add a 7.25 lunch expense to Checking");
        assertThat(card).hasAttribute("data-status", "proposed");
        String actionId = card.getAttribute("data-action-id");

        page.reload();

        Locator again = page.locator("article.card[data-action-id='" + actionId + "']");
        assertThat(again).hasAttribute("data-status", "proposed");
        assertThat(page.locator("#conversations button.conversation")).not().hasCount(0);
        String url = page.url();
        page.locator("a.skip").focus();
        page.keyboard().press("Enter");
        assertThat(page.locator("#main")).isFocused();
        assertThat(page.url()).as("the skip link keeps the conversation in the URL").isEqualTo(url).contains("#c=");
        assertThat(confirmButton(again)).containsText("fresh token");
        confirmButton(again).click();
        assertThat(again).hasAttribute("data-status", "executed");
        JsonNode history = Http.get(stack.executorUrl() + "/api/actions/" + actionId + "/history",
                executorToken("acme", "alice")).body();
        assertThat(history.toString()).contains("executed");
    }

    @Test
    void theCountdownRunsDownAndTheCardTurnsExpiredWithoutAReload() {
        signIn("acme", "bob");
        Locator card = ask("add a 9 taxi expense to Checking");
        assertThat(card).hasAttribute("data-status", "proposed");
        assertThat(card.locator(".expiry")).containsText("Decision window closes in");

        assertThat(card).hasAttribute("data-status", "expired",
                new LocatorAssertions.HasAttributeOptions().setTimeout(Duration.ofSeconds(45).toMillis()));
        assertThat(card.locator(".status")).containsText("Expired");
        assertThat(confirmButton(card)).isHidden();
        screenshot("expired-card");
    }

    @Test
    void planModeShowsAStatementCardThatRunsReadOnlyAndARefusalCard() {
        signIn("acme", "alice");
        page.getByRole(AriaRole.RADIO, new Page.GetByRoleOptions().setName(Pattern.compile("^Plan:"))).check();
        send("how much did I spend per category?");
        Locator statement = page.locator("article.plan.statement").last();
        assertThat(statement).containsText("Drafted statement");
        assertThat(statement.locator("pre.sql")).containsText("SELECT");
        assertThat(statement.locator(".guard")).containsText("single read-only SELECT");
        statement.getByRole(AriaRole.BUTTON, new Locator.GetByRoleOptions().setName("Run read-only")).click();
        assertThat(statement.locator("table.result-table")).isVisible();
        screenshot("plan-statement");

        send("which wallet did I open first?");
        Locator refusal = page.locator("article.plan.refusal").last();
        assertThat(refusal).containsText("No statement drafted");
        screenshot("plan-refusal");
        String text = page.locator("#messages").innerText();
        assertThat(text).doesNotContain("NO STATEMENT").doesNotContain("```");
    }

    @Test
    void aShortfallPlanCardShowsPlainWordsAndNeitherTheMarkerNorAFence() {
        signIn("acme", "alice");
        // The demo model never falls short, so the page's own plan card is rendered with the server's shortfall reasons.
        page.evaluate("async () => { const { planCard } = await import('/ui/plan.js');"
                + " const log = document.getElementById('messages');"
                + " for (const reason of ['Neither a statement in a ```postgresql fence nor a line starting NO STATEMENT: with"
                + " what is missing.', 'A bare NO STATEMENT: marker, with no account of what is missing after it, is not a"
                + " refusal.']) { log.append(planCard('c-x', 't-x', { type: 'PlanFellShort', reason })); } }");

        Locator shortfall = page.locator("article.plan.shortfall");
        assertThat(shortfall).hasCount(2);
        assertThat(shortfall.first())
                .containsText("The assistant gave neither a runnable statement nor a clear refusal.");
        assertThat(shortfall.nth(1)).containsText("declined without saying what is missing");
        String text = page.locator("#messages").innerText();
        assertThat(text).doesNotContain("NO STATEMENT:").doesNotContain("```");
    }

    @Test
    void anExpiredTokenSignsOutOnceAndStopsTheCardsPolling() {
        signIn("acme", "alice");
        Locator card = ask("add a 2 bus expense to Checking");
        assertThat(card).hasAttribute("data-status", "proposed");
        AtomicInteger afterSignOut = new AtomicInteger();
        page.evaluate("() => { const s = JSON.parse(sessionStorage.getItem('countersign.session'));"
                + " s.agentToken = 'a.b.c'; s.executorToken = 'a.b.c';"
                + " sessionStorage.setItem('countersign.session', JSON.stringify(s)); }");

        page.reload();

        assertThat(page.locator("#signin")).isVisible();
        assertThat(page.locator("#alert")).hasText("Your sign-in expired or was not accepted: sign in again.");
        assertThat(page.getByLabel("Tenant")).isFocused();
        page.onRequest(request -> {
            if (request.url().contains("/api/")) {
                afterSignOut.incrementAndGet();
            }
        });
        page.waitForTimeout(3_500);
        assertThat(afterSignOut.get()).as("requests after the sign-out (polls, countdowns, inbox)").isZero();
        assertThat(page.locator("#messages article.card")).hasCount(0);
        assertThat(page.getByLabel("Tenant")).isFocused();
    }

    @Test
    void afterAReloadANonApproverIsToldToAskAnApprover() {
        signIn("acme", "alice");
        Locator card = ask("add a 5 snack expense to Checking");
        assertThat(card).hasAttribute("data-status", "proposed");
        String actionId = card.getAttribute("data-action-id");
        // The groups only show or hide controls (the executor decides): a session without the approver group.
        page.evaluate("() => { const s = JSON.parse(sessionStorage.getItem('countersign.session'));"
                + " s.groups = ['user']; sessionStorage.setItem('countersign.session', JSON.stringify(s)); }");

        page.reload();

        Locator again = page.locator("article.card[data-action-id='" + actionId + "']");
        assertThat(again).hasAttribute("data-status", "proposed");
        assertThat(again.locator(".approver-only"))
                .hasText("Only an approver can decide this after a reload; ask one.");
        assertThat(confirmButton(again)).isHidden();
        assertThat(again.locator("button.cancel")).isHidden();
    }

    @Test
    void theInboxActivityAndPolicyScreensWork() {
        signIn("acme", "alice");
        Locator card = ask("add a 3 parking expense to Checking");
        assertThat(card).hasAttribute("data-status", "proposed");
        String actionId = card.getAttribute("data-action-id");

        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName(Pattern.compile("^Pending"))).click();
        Locator inboxCard = page.locator("#inbox article.card[data-action-id='" + actionId + "']");
        assertThat(inboxCard).hasAttribute("data-status", "proposed");
        screenshot("pending-inbox");

        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Activity")).click();
        page.locator("#activity tr[data-action-id='" + actionId + "']").getByRole(AriaRole.BUTTON,
                new Locator.GetByRoleOptions().setName(Pattern.compile("^History of: "))).click();
        assertThat(page.locator(".activity-detail .history-table")).containsText("proposed");
        screenshot("activity");

        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Trust and policy")).click();
        assertThat(page.locator("#trust")).containsText("medium-impact actions confirmed in a row");
        assertThat(page.getByRole(AriaRole.RADIO, new Page.GetByRoleOptions().setName(Pattern.compile("^Staged only"))))
                .isChecked();
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Save agent writes")).click();
        assertThat(page.locator("#announcer")).containsText("Agent writes saved: staged_only");
        screenshot("trust-and-policy");

        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Chat")).click();
        assertThat(card).hasAttribute("data-status", "proposed");
        AtomicInteger afterSignOut = new AtomicInteger();
        page.onRequest(request -> {
            if (request.url().contains("/api/")) {
                afterSignOut.incrementAndGet();
            }
        });
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign out")).click();
        assertThat(page.locator("#signin")).isVisible();
        assertThat(page.locator("#messages > *")).hasCount(0);
        assertThat(page.getByLabel("Tenant")).isFocused();
        page.waitForTimeout(3_000);
        assertThat(afterSignOut.get()).as("requests after signing out (card polls, the inbox count)").isZero();
    }

    @Test
    void theCspRefusesInlineScriptAndThisTestSeesTheViolation() {
        signIn("acme", "alice");
        page.evaluate("() => { const s = document.createElement('script'); s.textContent = 'window.injected = 1';"
                + " document.body.append(s); }");
        page.waitForCondition(() -> !problems.isEmpty(), new Page.WaitForConditionOptions().setTimeout(5_000));
        assertThat(problems).anyMatch(problem -> problem.contains("script-src"));
        assertThat(page.evaluate("() => window.injected === undefined")).isEqualTo(true);
    }

    private void signIn(String tenant, String user) {
        page.navigate(stack.agentUrl() + "/");
        page.getByLabel("Tenant").fill(tenant);
        page.getByLabel("User", new Page.GetByLabelOptions().setExact(true)).fill(user);
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
        assertThat(page.locator("#who")).containsText("Signed in as " + user);
        // A fresh conversation per test, so cards of other tests do not mix in.
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("New conversation")).click();
        assertThat(page.locator("#chat-title")).containsText("Conversation c-");
    }

    private void send(String text) {
        page.getByLabel("Message to the agent").fill(text);
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Send")).click();
        assertThat(page.locator("#send")).isEnabled(new LocatorAssertions.IsEnabledOptions().setTimeout(45_000));
    }

    /** Sends an act-mode message and answers the card its proposal produced. */
    private Locator ask(String text) {
        int before = page.locator("#messages article.card").count();
        send(text);
        Locator cards = page.locator("#messages article.card");
        try {
            assertThat(cards).hasCount(before + 1);
        } catch (AssertionError e) {
            // A turn that ended without a card says why in the conversation (a problem, the model's reply).
            throw new AssertionError(e.getMessage() + "\nThe conversation read: " + page.locator("#messages")
                    .innerText() + "\nThe alert read: " + page.locator("#alert").innerText(), e);
        }
        return cards.nth(before);
    }

    /** After a decision focus is on the card's status, or on Undo when the answer already offered it. */
    private static Locator focusAfterDecision(Locator card) {
        return card.locator(".status:focus, button.undo:focus");
    }

    private static Locator confirmButton(Locator card) {
        return card.locator("button.confirm");
    }

    private void screenshot(String name) {
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve(name + ".png")).setFullPage(true));
    }

    private static String executorToken(String tenant, String user) {
        return stack.tokens().mint(tenant, user, Audiences.EXECUTOR, Duration.ofMinutes(10));
    }

    private static String agentToken(String tenant, String user) {
        return stack.tokens().mint(tenant, user, Audiences.AGENT, Duration.ofMinutes(10));
    }

    private static int ledgerRows(String actionId) throws Exception {
        try (Connection owner = stack.ownerConnection();
                PreparedStatement count = owner.prepareStatement(
                        "SELECT count(*) FROM transactions WHERE source_action_id = ?")) {
            count.setObject(1, UUID.fromString(actionId));
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }
}
