package dev.countersign.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.model.ModelBrain;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.model.ModelReply.ToolCall;
import dev.countersign.devsupport.model.ModelTurn;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/** The wall-clock budget (2 s here instead of 40 s) and a tool that throws. */
@QuarkusTest
@AgentTestResources
@TestProfile(TurnBudgetTest.ShortBudget.class)
class TurnBudgetTest {

    public static class ShortBudget implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("countersign.turn.wall-clock", "PT2S", "countersign.test.exploding-tool", "true");
        }
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
}
