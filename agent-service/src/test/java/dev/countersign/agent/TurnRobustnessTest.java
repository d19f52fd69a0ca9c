package dev.countersign.agent;

import static dev.countersign.agent.AgentFixtures.lastToolResults;
import static dev.countersign.agent.AgentFixtures.script;
import static dev.countersign.agent.AgentFixtures.scriptThenAlways;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.model.ModelReply.ToolCall;
import io.quarkus.test.junit.QuarkusTest;

/** Whatever the model does, the turn ends with an answer: unknown tools, malformed arguments, endless tool calls. */
@QuarkusTest
@AgentTestResources
class TurnRobustnessTest {

    private static final String EXPENSE = "{\"wallet\":\"Checking\",\"amount\":\"3.50\",\"category\":\"coffee\"}";

    private AgentFixtures fixtures;

    @BeforeEach
    void freshTenant() throws Exception {
        fixtures = new AgentFixtures();
    }

    @Test
    void anUnknownToolGetsABenignResultAndTheTurnGoesOn() {
        ScriptedModel.use(script(ModelReply.toolCalls(new ToolCall("drop_database", "{}"),
                new ToolCall("list_wallets", "{}")), ModelReply.text("Here are your wallets.")));

        fixtures.chat("c-unknown", "list my wallets").statusCode(200).body("reply", equalTo("Here are your wallets."))
                .body("ending", equalTo("ANSWERED"));

        assertThat(lastToolResults()).hasSize(2);
        assertThat(lastToolResults().get(0)).startsWith("No such tool \"drop_database\"; nothing was done.")
                .contains("list_wallets");
        assertThat(lastToolResults().get(1)).contains("Checking (EUR)");
    }

    @Test
    void malformedArgumentsFailThatCallOnly() {
        ScriptedModel.use(script(ModelReply.toolCalls(new ToolCall("propose_expense", "{\"wallet\": \"Check"),
                new ToolCall("propose_expense", "[1, 2]"), new ToolCall("propose_expense", EXPENSE)),
                ModelReply.text("One expense is staged.")));

        fixtures.chat("c-malformed", "add coffee").statusCode(200).body("proposals", hasSize(1));

        assertThat(lastToolResults().get(0)).startsWith("The arguments of propose_expense were not a JSON object;"
                + " nothing was done.");
        assertThat(lastToolResults().get(1)).startsWith("The arguments of propose_expense were not a JSON object");
        assertThat(lastToolResults().get(2)).startsWith("Staged action");
    }

    @Test
    void aModelThatNeverStopsCallingToolsIsStoppedAfterEightRoundsWithWhatWasDone() {
        ModelReply[] replies = new ModelReply[12];
        replies[0] = ModelReply.toolCall("propose_expense", EXPENSE);
        for (int i = 1; i < replies.length; i++) {
            replies[i] = ModelReply.toolCall("list_wallets", "{}");
        }
        ScriptedModel.use(script(replies));

        var reply = fixtures.chat("c-rounds", "loop").statusCode(200).body("ending", equalTo("BUDGET_REACHED"))
                .body("reply", startsWith("Stopped: budget reached (at most 8 tool rounds per turn)."))
                .body("proposals", hasSize(1)).extract().jsonPath();

        assertThat(ScriptedModel.requests()).hasSize(9);
        assertThat(reply.getString("reply")).contains("Tools that ran: propose_expense, list_wallets")
                .contains("Staged for your confirmation (not applied): Add an expense of 3.50");
    }

    @Test
    void atMostTenCallsOfOneResponseRunTheRestAreAnsweredNotRun() {
        ToolCall[] calls = new ToolCall[12];
        for (int i = 0; i < calls.length; i++) {
            // Twelve different coffees: identical calls in one turn would be one action (ProposalIds).
            calls[i] = new ToolCall("propose_expense", EXPENSE.replace("3.50", "3.%d".formatted(10 + i)));
        }
        ScriptedModel.use(script(ModelReply.toolCalls(calls), ModelReply.text("Ten are staged.")));

        fixtures.chat("c-many", "add twelve coffees").statusCode(200).body("proposals", hasSize(10));

        assertThat(lastToolResults()).hasSize(12);
        assertThat(lastToolResults().subList(0, 10)).allSatisfy(result -> assertThat(result).startsWith("Staged"));
        assertThat(lastToolResults().subList(10, 12)).allSatisfy(result -> assertThat(result)
                .startsWith("Not run: at most 10 tool calls per response; nothing was done"));
    }

    @Test
    void aModelThatAnswersGarbageIsAClearErrorWhenNothingWasDone() {
        // Every request, the client's retry included, gets the same garbage.
        ScriptedModel.use(scriptThenAlways(ModelReply.raw("<html>502 Bad Gateway</html>")));

        fixtures.chat("c-garbage", "hello").statusCode(503).contentType("application/problem+json")
                .body("code", equalTo("upstream_unavailable")).body("detail", startsWith("The model did not answer."));
    }

    @Test
    void garbageAfterAProposalStillHandsTheProposalToThePerson() {
        ScriptedModel.use(scriptThenAlways(ModelReply.raw("{\"nope\":"), ModelReply.toolCall("propose_expense",
                EXPENSE)));

        fixtures.chat("c-garbage-late", "add coffee").statusCode(200).body("ending", equalTo("MODEL_FAILED"))
                .body("proposals", hasSize(1))
                .body("reply", startsWith("The model stopped before it finished answering."));
    }
}
