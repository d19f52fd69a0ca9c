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
    void inPlanModeItDraftsSpendingPerCategoryOnlyWhenTheInventoryListsItsColumnsAndOtherwiseRefuses() {
        ObjectNode request = Json.mapper().createObjectNode();
        ArrayNode messages = request.putArray("messages");
        messages.addObject().put("role", "system").put("content", "You are in PLAN mode ...\nrelation"
                + " public.transactions - rows: about 3\n  category text not null\n  deleted_at timestamp with time"
                + " zone\n  unconfirmed boolean not null\n");
        messages.addObject().put("role", "user").put("content", "How much did I spend per category?");

        assertThat(model.respond(new ModelTurn(request)).text()).contains("```postgresql\nSELECT w.currency")
                .doesNotContain("NO STATEMENT:");
        ((ObjectNode) messages.get(0)).put("content", "You are in PLAN mode ...\n(no relation is visible)");
        assertThat(model.respond(new ModelTurn(request)).text()).contains("\nNO STATEMENT: the offline demo model");
    }

    @Test
    void anExpenseSentenceBecomesAProposeCallWithTheUsersWalletSpelling() throws Exception {
        var reply = model.respond(turn("Add a 12.50 coffee expense to Checking", List.of("propose_expense")));

        assertThat(reply.toolCalls()).singleElement().extracting(ModelReply.ToolCall::name)
                .isEqualTo("propose_expense");
        var args = arguments(reply);
        assertThat(args.get("wallet").asText()).isEqualTo("Checking");
        assertThat(args.get("amount").asText()).isEqualTo("12.50");
        assertThat(args.get("category").asText()).isEqualTo("coffee");
    }

    @Test
    void anEmailSentenceNamesTheCaseAndATicketSentenceItsTitleEvenWhenTheyMentionWallets() throws Exception {
        var email = model.respond(turn("email the requestor of case 00000000-0000-4000-8000-00000000C001: your"
                + " wallet refund is on its way", List.of("propose_requestor_email", "list_wallets")));
        var ticket = model.respond(turn("open a ticket: printer on fire", List.of("propose_ticket")));

        assertThat(email.toolCalls()).singleElement().extracting(ModelReply.ToolCall::name)
                .isEqualTo("propose_requestor_email");
        assertThat(arguments(email).get("caseId").asText()).isEqualTo("00000000-0000-4000-8000-00000000c001");
        assertThat(arguments(email).get("body").asText()).isEqualTo("your wallet refund is on its way");
        assertThat(arguments(ticket).get("title").asText()).isEqualTo("printer on fire");
    }

    @Test
    void aCategoryTheToolDoesNotOfferBecomesOther() throws Exception {
        ModelTurn turn = turn("add a 3.20 tea expense to Savings", List.of("propose_expense"));
        ((ObjectNode) turn.request().path("tools").get(0).path("function")).putObject("parameters")
                .putObject("properties").putObject("category").putArray("enum").add("coffee").add("other");

        assertThat(arguments(model.respond(turn)).get("category").asText()).isEqualTo("other");
    }

    @Test
    void aDecimalCommaIsReadAsAPoint() throws Exception {
        var reply = model.respond(turn("add 3,20 tea expense to Savings", List.of("propose_expense")));

        assertThat(arguments(reply).get("amount").asText()).isEqualTo("3.20");
    }

    @Test
    void aRenameSentenceBecomesARenameCall() throws Exception {
        var reply = model.respond(turn("rename wallet Checking to Everyday", List.of("propose_wallet_rename")));

        var args = arguments(reply);
        assertThat(args.get("wallet").asText()).isEqualTo("Checking");
        assertThat(args.get("name").asText()).isEqualTo("Everyday");
    }

    @Test
    void aSpendingQuestionAsksForTheMonthlySummary() throws Exception {
        var reply = model.respond(turn("How much did I spend?", List.of("spending_summary", "list_wallets")));

        assertThat(reply.toolCalls()).extracting(ModelReply.ToolCall::name).containsExactly("spending_summary");
        assertThat(arguments(reply).get("period").asText()).isEqualTo("month");
    }

    @Test
    void aDeleteNamesTheTransactionById() throws Exception {
        var reply = model.respond(turn("delete transaction 123E4567-E89B-12D3-A456-426614174000",
                List.of("propose_transaction_delete")));

        assertThat(arguments(reply).get("transactionId").asText()).isEqualTo("123e4567-e89b-12d3-a456-426614174000");
    }

    @Test
    void aRequestItDoesNotUnderstandIsAnsweredWithWhatItDoesAndLabelled() {
        var reply = model.respond(turn("delete the last transaction", List.of("propose_expense")));

        assertThat(reply.toolCalls()).isEmpty();
        assertThat(reply.text()).startsWith(DemoModel.LABEL).contains("only understand a few requests");
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
