package dev.countersign.agent;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.testing.MetricsText;
import io.quarkus.test.junit.QuarkusTest;

/** A turn moves the turn and model metrics at {@code /q/metrics} by what it did. */
@QuarkusTest
@AgentTestResources
class TurnMetricsTest {

    private static final String ANSWERED_ACT_TURNS = "countersign_agent_turn_seconds_count";

    @Test
    void aTurnWithOneToolRoundCountsOneAnsweredTurnTwoModelCallsAndTheirTokens() throws Exception {
        AgentFixtures fixtures = new AgentFixtures();
        ScriptedModel.use(turn -> turn.pendingToolResults().isEmpty()
                ? ModelReply.toolCall("list_wallets", "{}")
                : ModelReply.text("You have Checking and Savings."));
        double turns = metric(ANSWERED_ACT_TURNS, "mode=\"act\"", "ending=\"answered\"");
        double calls = metric("countersign_agent_model_call_seconds_count");
        double input = metric("countersign_agent_model_tokens_total", "type=\"input\"");
        double output = metric("countersign_agent_model_tokens_total", "type=\"output\"");
        double recordings = metric("countersign_agent_turn_recording_seconds_count");

        fixtures.chat("c-metrics", "which wallets do I have?").statusCode(200);

        assertThat(metric(ANSWERED_ACT_TURNS, "mode=\"act\"", "ending=\"answered\"")).isEqualTo(turns + 1);
        assertThat(metric("countersign_agent_turn_seconds_sum", "mode=\"act\"", "ending=\"answered\""))
                .isPositive();
        assertThat(metric("countersign_agent_model_call_seconds_count")).isEqualTo(calls + 2);
        assertThat(metric("countersign_agent_turn_recording_seconds_count")).isEqualTo(recordings + 1);
        // The scripted model reports one token per message it received and per answer part (ModelServer).
        assertThat(metric("countersign_agent_model_tokens_total", "type=\"output\"")).isEqualTo(output + 2);
        assertThat(metric("countersign_agent_model_tokens_total", "type=\"input\"")).isGreaterThan(input + 2);
        // Buckets reach past the turn's wall clock (40 s), so a quantile over a slow turn is not capped at 30 s.
        assertThat(metric("countersign_agent_turn_seconds_bucket", "mode=\"act\"", "ending=\"answered\"",
                "le=\"120.0\"")).isEqualTo(turns + 1);
        assertThat(metric("countersign_agent_model_call_seconds_bucket", "le=\"120.0\"")).isEqualTo(calls + 2);
    }

    /** The value of the series {@code name} having all {@code labels} (0 if it does not exist yet). */
    private static double metric(String name, String... labels) {
        return MetricsText.value(given().get(Management.url("/metrics")).then().statusCode(200).extract().asString(),
                name, labels);
    }
}
