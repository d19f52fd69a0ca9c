package dev.countersign.agent;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.agent.turn.ModelCalls;
import dev.countersign.devsupport.model.ModelBrain;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.model.ModelReply.ToolCall;
import dev.countersign.devsupport.model.ModelTurn;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;

/**
 * The wall-clock budget (2 s here instead of 40 s), a tool that throws, and the guards around turns and the model
 * (small here): a person's turn limit, the bulkhead and the circuit breaker of {@code ModelCalls}.
 */
@QuarkusTest
@AgentTestResources
@TestProfile(TurnBudgetTest.ShortBudget.class)
class TurnBudgetTest {

    static final int TURNS_PER_PERSON = 3;
    static final int CONCURRENT_CALLS = 4;
    static final int BREAKER_VOLUME = 3;

    public static class ShortBudget implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("countersign.turn.wall-clock", "PT2S", "countersign.test.exploding-tool", "true",
                    "countersign.limits.turns-per-person", String.valueOf(TURNS_PER_PERSON),
                    "countersign.model.max-concurrent-calls", String.valueOf(CONCURRENT_CALLS),
                    "countersign.model.breaker.request-volume", String.valueOf(BREAKER_VOLUME));
        }
    }

    @BeforeEach
    @AfterEach
    void closedBreaker() {
        CircuitBreakerMaintenance.get().reset(ModelCalls.BREAKER);
    }

    private AgentFixtures fixtures;

    @BeforeEach
    void freshTenant() throws Exception {
        fixtures = new AgentFixtures();
    }

    /** Sleeps past the budget, then answers. */
    private static ModelBrain slow() {
        return turn -> {
            try {
                Thread.sleep(4_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ModelReply.text("Too late.");
        };
    }

    /** Answers "Done." once {@code release} opens, or after 1.5 s: within the 2 s budget. */
    private static ModelBrain waitingFor(CountDownLatch release) {
        return turn -> {
            try {
                release.await(1500, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ModelReply.text("Done.");
        };
    }

    /** Answers {@code first}, then is slow on every later request. */
    private static ModelBrain fastThenSlow(ModelReply first) {
        AtomicInteger calls = new AtomicInteger();
        ModelBrain slow = slow();
        return turn -> calls.getAndIncrement() == 0 ? first : slow.respond(turn);
    }

    @Test
    void aSlowModelIsAClearErrorWithinTheBudgetNotAHungRequest() {
        ScriptedModel.use(slow());
        Instant start = Instant.now();

        fixtures.chat("c-slow", "hello").statusCode(503).body("code", equalTo("upstream_unavailable"))
                .body("detail", startsWith("The model did not answer within the turn's budget of PT2S."));

        assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofMillis(3_500));
    }

    @Test
    void pastTheBudgetThePersonGetsWhatWasDoneAndNothingHalfStaged() {
        ScriptedModel.use(fastThenSlow(ModelReply.toolCall("propose_expense",
                "{\"wallet\":\"Checking\",\"amount\":\"3.50\",\"category\":\"coffee\"}")));

        fixtures.chat("c-budget", "add coffee").statusCode(200).body("ending", equalTo("BUDGET_REACHED"))
                .body("reply", startsWith("Stopped: budget reached (the turn's time ran out)."))
                .body("proposals", hasSize(1)).body("proposals[0].kind", equalTo("ledger.transaction.create"));
    }

    @Test
    void aToolThatThrowsTellsTheModelItFailedAndTheTurnGoesOn() {
        // Answers from the request itself, not from a position in a script: a call the previous test's turn abandoned
        // at its deadline may still be retried by the client and arrive here, and must not take this test's answer.
        ScriptedModel.use(turn -> turn.pendingToolResults().isEmpty()
                ? ModelReply.toolCalls(new ToolCall(ExplodingTool.NAME, "{}"), new ToolCall("list_wallets", "{}"))
                : ModelReply.text("That did not work."));

        fixtures.chat("c-explode", "try it").statusCode(200).body("reply", equalTo("That did not work."));

        List<String> results = ScriptedModel.requests().stream().map(request -> new ModelTurn(request).toolResults())
                .filter(found -> !found.isEmpty() && found.get(0).contains("exploding_tool")).findFirst()
                .orElseThrow(() -> new AssertionError("no request carried the exploding tool's result"));
        assertThat(results.get(0)).isEqualTo("The tool exploding_tool failed for a technical reason;"
                + " nothing was done by this call. Do not claim it succeeded: tell the user it did not work and"
                + " that they can try again.");
        assertThat(results.get(1)).contains("Checking");
    }

    @Test
    void aPersonsTurnsBeyondTheLimitAreRefusedWithRetryAfterBeforeAnythingRunsAndOthersGoOn() throws Exception {
        ScriptedModel.use(turn -> ModelReply.text("Hello."));
        for (int turn = 0; turn < TURNS_PER_PERSON; turn++) {
            fixtures.chat("c-limit-" + turn, "hello").statusCode(200);
        }
        int asked = ScriptedModel.requests().size();

        String retryAfter = fixtures.chat("c-limit-over", "hello").statusCode(429)
                .contentType("application/problem+json").body("code", equalTo("rate_limited"))
                .body("detail", startsWith("You started 3 conversation turns within 60 seconds")).extract()
                .header("Retry-After");
        given().contentType("application/json").accept("text/event-stream")
                .header("Authorization", "Bearer " + fixtures.bearer).body("{\"text\": \"hello\"}")
                .post("/api/conversations/c-limit-stream/messages").then().statusCode(429)
                .body("code", equalTo("rate_limited"));

        assertThat(Integer.parseInt(retryAfter)).isBetween(1, 60);
        assertThat(ScriptedModel.requests()).hasSize(asked);
        new AgentFixtures().chat("c-limit-other", "hello").statusCode(200);
    }

    @Test
    void afterTheModelKeptFailingTurnsAreRefusedAtOnceWithRetryAfterAndTheModelIsNotCalled() throws Exception {
        // Every request, the client's retry included, gets garbage: each turn is one failed call for the breaker.
        ScriptedModel.use(AgentFixtures.scriptThenAlways(ModelReply.raw("<html>502 Bad Gateway</html>")));
        for (int turn = 0; turn < BREAKER_VOLUME; turn++) {
            new AgentFixtures().chat("c-failing", "hello").statusCode(503)
                    .body("detail", startsWith("The model did not answer."));
        }
        assertThat(CircuitBreakerMaintenance.get().currentState(ModelCalls.BREAKER))
                .isEqualTo(CircuitBreakerState.OPEN);
        int asked = ScriptedModel.requests().size();

        fixtures.chat("c-paused", "hello").statusCode(503).body("code", equalTo("upstream_unavailable"))
                .body("detail", startsWith("The model kept failing, so calls to it are paused for up to 30 seconds"))
                .header("Retry-After", equalTo("30"));

        assertThat(ScriptedModel.requests()).hasSize(asked);
    }

    @Test
    void noMoreModelCallsThanTheBulkheadAllowsAreInFlightAndOneMoreIsRefusedAtOnce() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        ScriptedModel.use(turn -> {
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            try {
                release.await(1500, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                inFlight.decrementAndGet();
            }
            return ModelReply.text("Done.");
        });
        List<AgentFixtures> people = new ArrayList<>();
        for (int person = 0; person < CONCURRENT_CALLS + BREAKER_VOLUME; person++) {
            people.add(new AgentFixtures());
        }
        ExecutorService turns = Executors.newFixedThreadPool(people.size());
        try {
            List<Future<Integer>> statuses = new ArrayList<>();
            for (AgentFixtures person : people) {
                statuses.add(turns.submit(() -> person.chat("c-crowd", "hello").extract().statusCode()));
            }
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> statuses.stream().filter(Future::isDone).count() >= BREAKER_VOLUME);
            // Refusals of the bulkhead, as many as the breaker's window: a busy instance is not a failing model.
            assertThat(CircuitBreakerMaintenance.get().currentState(ModelCalls.BREAKER))
                    .isEqualTo(CircuitBreakerState.CLOSED);
            release.countDown();
            List<Integer> answered = new ArrayList<>();
            for (Future<Integer> status : statuses) {
                answered.add(status.get(10, TimeUnit.SECONDS));
            }

            // A call an earlier test abandoned may still hold a place: then more than one is refused.
            assertThat(answered).contains(503).allMatch(status -> status == 200 || status == 503);
            assertThat(mostInFlight.get()).isLessThanOrEqualTo(CONCURRENT_CALLS);
        } finally {
            release.countDown();
            turns.shutdownNow();
        }
    }

    @Test
    void refusalsTheRequestBringsOnItselfDoNotPauseTheModelForEveryone() throws Exception {
        // A context too long, as a person could provoke on purpose: the model's API answers 400.
        ScriptedModel.use(AgentFixtures.scriptThenAlways(ModelReply.error(400, "context length exceeded")));
        for (int turn = 0; turn < BREAKER_VOLUME + 1; turn++) {
            new AgentFixtures().chat("c-too-long", "hello").statusCode(503)
                    .body("detail", startsWith("The model did not answer."));
        }

        assertThat(CircuitBreakerMaintenance.get().currentState(ModelCalls.BREAKER))
                .isEqualTo(CircuitBreakerState.CLOSED);
    }

    @Test
    void aThirdTurnOfOnePersonWhileTwoRunIsRefusedUntilOneAnswers() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ScriptedModel.use(waitingFor(release));
        ExecutorService turns = Executors.newFixedThreadPool(2);
        try {
            List<Future<Integer>> running = List.of(
                    turns.submit(() -> fixtures.chat("c-running-1", "hello").extract().statusCode()),
                    turns.submit(() -> fixtures.chat("c-running-2", "hello").extract().statusCode()));
            await().atMost(Duration.ofSeconds(5)).until(() -> ScriptedModel.requests().size() >= 2);

            fixtures.chat("c-running-3", "hello").statusCode(429).body("code", equalTo("rate_limited"))
                    .body("detail", startsWith("You already have 2 conversation turns running"))
                    .header("Retry-After", equalTo("5"));
            release.countDown();
            for (Future<Integer> turn : running) {
                assertThat(turn.get(10, TimeUnit.SECONDS)).isEqualTo(200);
            }
        } finally {
            release.countDown();
            turns.shutdownNow();
        }
    }

    @Test
    void aStreamTheClientLeavesKeepsItsPlaceUntilItsTurnEnds() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ScriptedModel.use(waitingFor(release));
        var client = java.net.http.HttpClient.newHttpClient();
        var streamed = java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                io.restassured.RestAssured.baseURI + ":" + io.restassured.RestAssured.port
                        + "/api/conversations/c-left/messages"))
                .header("Authorization", "Bearer " + fixtures.bearer).header("Content-Type", "application/json")
                .header("Accept", "text/event-stream")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"text\": \"hello\"}")).build();
        ExecutorService turns = Executors.newSingleThreadExecutor();
        try {
            var left = client.send(streamed, java.net.http.HttpResponse.BodyHandlers.ofInputStream());
            await().atMost(Duration.ofSeconds(5)).until(() -> ScriptedModel.requests().size() >= 1);
            left.body().close(); // the client leaves; its turn goes on, waiting for the model
            Future<Integer> second = turns.submit(() -> fixtures.chat("c-second", "hello").extract().statusCode());
            await().atMost(Duration.ofSeconds(5)).until(() -> ScriptedModel.requests().size() >= 2);

            fixtures.chat("c-third", "hello").statusCode(429)
                    .body("detail", startsWith("You already have 2 conversation turns running"));
            release.countDown();
            assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(200);
        } finally {
            release.countDown();
            turns.shutdownNow();
        }
    }
}
