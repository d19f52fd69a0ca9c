package dev.countersign.devsupport.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.json.Json;

class DemoModelTest {

    private final DemoModel model = new DemoModel();

    private static ModelTurn turn(String userText, List<String> tools, String... toolResults) {
        ObjectNode request = Json.mapper().createObjectNode();
        ArrayNode messages = request.putArray("messages");
        messages.addObject().put("role", "system").put("content", "You are an assistant.");
        messages.addObject().put("role", "user").put("content", userText);
        if (toolResults.length > 0) {
            messages.addObject().put("role", "assistant");
            for (String result : toolResults) {
                messages.addObject().put("role", "tool").put("content", result);
            }
        }
        ArrayNode toolNodes = request.putArray("tools");
        tools.forEach(name -> toolNodes.addObject().put("type", "function").putObject("function").put("name", name));
        return new ModelTurn(request);
    }

    private static JsonNode arguments(ModelReply reply) throws Exception {
        return Json.mapper().readTree(reply.toolCalls().get(0).argumentsJson());
    }

    @Test
    void anExpenseSentenceBecomesAProposeCallWithTheUsersWalletSpelling() throws Exception {
        var reply = model.respond(turn("Add a 12.50 coffee expense to Checking", List.of("propose_expense")));

        assertThat(reply.toolCalls()).singleElement().extracting(ModelReply.ToolCall::name)
                .isEqualTo("propose_expense");
        var args = arguments(reply);
        assertThat(args.get("walletName").asText()).isEqualTo("Checking");
        assertThat(args.get("amount").asText()).isEqualTo("12.50");
        assertThat(args.get("category").asText()).isEqualTo("coffee");
    }

    @Test
    void aDecimalCommaIsReadAsAPoint() throws Exception {
        var reply = model.respond(turn("add 3,20 tea expense to Savings", List.of("propose_expense")));

        assertThat(arguments(reply).get("amount").asText()).isEqualTo("3.20");
    }

    @Test
    void aRenameSentenceBecomesARenameCall() throws Exception {
        var reply = model.respond(turn("rename wallet Checking to Everyday", List.of("rename_wallet")));

        var args = arguments(reply);
        assertThat(args.get("walletName").asText()).isEqualTo("Checking");
        assertThat(args.get("newName").asText()).isEqualTo("Everyday");
    }

    @Test
    void aSpendingQuestionReadsTransactions() {
        var reply = model.respond(turn("How much did I spend?", List.of("recent_transactions", "list_wallets")));

        assertThat(reply.toolCalls()).extracting(ModelReply.ToolCall::name).containsExactly("recent_transactions");
    }

    @Test
    void aRequestWithoutAMatchingToolIsDeclinedAndLabelled() {
        var reply = model.respond(turn("delete the last transaction", List.of("propose_expense")));

        assertThat(reply.toolCalls()).isEmpty();
        assertThat(reply.text()).startsWith(DemoModel.LABEL).contains("no tool").contains("nothing was done");
    }

    @Test
    void itNeverCallsAToolTheAgentDoesNotOffer() {
        var reply = model.respond(turn("add a 12.50 coffee expense to Checking", List.of()));

        assertThat(reply.toolCalls()).isEmpty();
        assertThat(reply.text()).startsWith(DemoModel.LABEL);
    }

    @Test
    void afterToolsItRelaysTheirResultsLabelled() {
        var reply = model.respond(turn("add a 12.50 coffee expense to Checking", List.of("propose_expense"),
                "\"Staged action 1 for the user's confirmation\""));

        assertThat(reply.text()).isEqualTo(DemoModel.LABEL + " Staged action 1 for the user's confirmation");
    }
}
