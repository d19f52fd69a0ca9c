package dev.countersign.agent;

import static dev.countersign.agent.AgentFixtures.lastToolResults;
import static dev.countersign.agent.AgentFixtures.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.StreamSupport;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.agent.tools.ToolBox;
import dev.countersign.agent.tools.propose.ProposalIds;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.model.ModelReply.ToolCall;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/** Every tool, through the real OpenAI client and the scripted model: what it is offered, what it does. */
@QuarkusTest
@AgentTestResources
class ToolsTest {

    private static final LocalDate TODAY = LocalDate.now();

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private AgentFixtures fixtures;

    @Inject
    ToolBox toolBox;

    @BeforeEach
    void freshTenant() throws Exception {
        fixtures = new AgentFixtures();
    }

    /** The tools of the first request the model received, by name. */
    private static JsonNode offeredTool(String name) {
        for (JsonNode tool : ScriptedModel.requests().get(0).path("tools")) {
            if (tool.path("function").path("name").asText().equals(name)) {
                return tool.path("function").path("parameters");
            }
        }
        throw new AssertionError("tool not offered: " + name);
    }

    private static List<String> texts(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
    }

    private static ModelReply call(String tool, String arguments) {
        return ModelReply.toolCall(tool, arguments);
    }

    @Test
    void schemasAreBuiltFromTheTenantsLiveDataAndTheCatalogue() throws Exception {
        fixtures.ownTransaction("alice", fixtures.checking, "40.00", "padel", "court");
        // A category someone else wrote is text alice did not write: never offered (see TaintTest).
        fixtures.transaction(fixtures.checking, "41.00", "squash", "court", TODAY);
        ScriptedModel.use(script(ModelReply.text("Hi.")));

        fixtures.chat("c-schemas", "hello").statusCode(200);

        List<String> offered = new ArrayList<>();
        ScriptedModel.requests().get(0).path("tools").forEach(t -> offered.add(t.path("function").path("name")
                .asText()));
        // The six read tools and one propose tool per declared kind (the test profile offers external writes).
        assertThat(offered).containsExactlyInAnyOrderElementsOf(toolBox.names())
                .containsAll(ActionCatalogue.all().stream().map(ActionDefinition::tool).toList())
                .hasSize(6 + ActionCatalogue.all().size());
        JsonNode expense = offeredTool("propose_expense");
        assertThat(texts(expense.path("properties").path("wallet").path("enum"))).containsExactly("Checking",
                "Savings");
        assertThat(texts(expense.path("properties").path("category").path("enum"))).startsWith("padel")
                .containsAll(ActionCatalogue.DEFAULT_CATEGORIES).doesNotContain("squash");
        // An edit tool takes the transaction and exactly the catalogue's editable fields.
        List<String> editArguments = new ArrayList<>();
        offeredTool("propose_transaction_edit").path("properties").fieldNames().forEachRemaining(editArguments::add);
        List<String> expected = new ArrayList<>(ActionCatalogue.find(ShippedKinds.EDIT_TRANSACTION).orElseThrow()
                .editableFields());
        expected.add("transactionId");
        assertThat(editArguments).containsExactlyInAnyOrderElementsOf(expected);
        // No tool can so much as express a status.
        for (JsonNode tool : ScriptedModel.requests().get(0).path("tools")) {
            assertThat(tool.path("function").path("parameters").path("properties").has("status"))
                    .as(tool.path("function").path("name").asText()).isFalse();
        }
    }

    @Test
    void transactionsAreFoundByWalletCategoryDateRangeAndStrippedText() throws Exception {
        fixtures.transaction(fixtures.checking, "3.50", "coffee", "flat white at Mario's", TODAY.minusDays(1));
        fixtures.transaction(fixtures.checking, "4.00", "coffee", "espresso", TODAY.minusDays(40));
        fixtures.transaction(fixtures.savings, "80.00", "groceries", "weekly shop", TODAY);
        UUID deleted = fixtures.transaction(fixtures.checking, "9.00", "coffee", "mario beans", TODAY);
        try (var owner = dev.countersign.devsupport.testing.TestProperties.ownerConnection()) {
            owner.createStatement().executeUpdate(
                    "UPDATE transactions SET deleted_at = now() WHERE id = '" + deleted + "'");
        }
        ScriptedModel.use(script(ModelReply.toolCalls(
                new ToolCall("find_transactions", "{\"wallet\":\"Checking\",\"category\":\"coffee\",\"from\":\""
                        + TODAY.minusDays(7) + "\",\"to\":\"" + TODAY + "\"}"),
                new ToolCall("find_transactions", "{\"text\":\"mario's%_\"}"),
                new ToolCall("find_transactions", "{\"wallet\":\"Savings\"}"))));

        fixtures.chat("c-find", "my coffees this week").statusCode(200);

        List<String> results = lastToolResults();
        assertThat(results.get(0)).contains("3.50").doesNotContain("4.00").doesNotContain("80.00")
                .doesNotContain("9.00");
        assertThat(results.get(1)).contains("flat white").doesNotContain("espresso").doesNotContain("mario beans");
        assertThat(results.get(2)).contains("80.00").doesNotContain("3.50");
    }

    @Test
    void spendingIsSummedPerPeriodAndCategory() throws Exception {
        LocalDate firstOfMonth = TODAY.withDayOfMonth(1);
        fixtures.transaction(fixtures.checking, "3.50", "coffee", null, firstOfMonth);
        fixtures.transaction(fixtures.savings, "4.25", "coffee", null, firstOfMonth);
        fixtures.transaction(fixtures.checking, "80.00", "groceries", null, firstOfMonth);
        fixtures.transaction(fixtures.checking, "10.00", "coffee", null, firstOfMonth.minusMonths(1));
        ScriptedModel.use(script(call("spending_summary", "{\"period\":\"month\",\"from\":\"" + firstOfMonth
                + "\"}"), ModelReply.text("You spent 87.75 this month.")));

        fixtures.chat("c-spend", "how much this month?").statusCode(200);

        assertThat(lastToolResults()).singleElement().asString()
                .contains(firstOfMonth + " groceries: 80.00 EUR (1 transactions)")
                .contains(firstOfMonth + " coffee: 7.75 EUR (2 transactions)")
                .doesNotContain("10.00");
    }

    @Test
    void weeklyTotalsAndACategoryInAnotherCaseAreCounted() throws Exception {
        LocalDate monday = TODAY.with(java.time.DayOfWeek.MONDAY);
        fixtures.transaction(fixtures.checking, "3.50", "Coffee", null, monday);
        fixtures.transaction(fixtures.checking, "2.00", "coffee", null, monday.plusDays(1));
        fixtures.transaction(fixtures.checking, "5.00", "coffee", null, monday.minusWeeks(1));
        ScriptedModel.use(script(ModelReply.toolCalls(
                new ToolCall("spending_summary", "{\"period\":\"week\",\"category\":\"coffee\"}"),
                new ToolCall("find_transactions", "{\"category\":\"coffee\"}"))));

        fixtures.chat("c-week", "coffee per week?").statusCode(200);

        assertThat(lastToolResults().get(0)).contains(monday + " coffee: 5.50 EUR (2 transactions)")
                .contains(monday.minusWeeks(1) + " coffee: 5.00 EUR (1 transactions)");
        assertThat(lastToolResults().get(1)).contains("3.50").contains("2.00").contains("5.00");
    }

    @Test
    void importedRowsNotYetConfirmedAreLeftOutAndCounted() throws Exception {
        fixtures.transaction(fixtures.checking, "3.50", "coffee", "checked", TODAY);
        try (var owner = dev.countersign.devsupport.testing.TestProperties.ownerConnection()) {
            owner.createStatement().executeUpdate("INSERT INTO transactions (id, tenant_id, wallet_id, amount,"
                    + " category, description, occurred_on, unconfirmed, imported_by) VALUES (gen_random_uuid(), '"
                    + fixtures.tenant + "', '" + fixtures.checking + "', 99.00, 'coffee', 'from the bank',"
                    + " current_date, true, 'alice')");
        }
        ScriptedModel.use(script(ModelReply.toolCalls(new ToolCall("spending_summary", "{\"period\":\"month\"}"),
                new ToolCall("find_transactions", "{\"category\":\"coffee\"}"),
                new ToolCall("spending_summary", "{\"period\":\"month\",\"category\":\"groceries\"}"))));

        fixtures.chat("c-imports", "how much on coffee?").statusCode(200);

        assertThat(lastToolResults().get(0)).contains("coffee: 3.50 EUR (1 transactions)").doesNotContain("99")
                .contains("(1 imported transaction(s) not yet confirmed by the user were left out.)");
        assertThat(lastToolResults().get(1)).contains("checked").doesNotContain("from the bank")
                .contains("1 imported transaction(s)");
        assertThat(lastToolResults().get(2)).isEqualTo("No spending in that range.");
    }

    @Test
    void plansAndPendingActionsAreTheUsersOwn() throws Exception {
        fixtures.plan("alice", "Marathon block", "active", "Mon: 10 km");
        fixtures.plan("alice", "Spring draft", "draft", "Tue: intervals");
        fixtures.plan("alice", "Old plan", "archived", "Sun: rest");
        fixtures.plan("bob", "Bob's plan", "active", "Wed: swim");
        UUID waiting = fixtures.action("alice", "proposed", "Rename wallet to Everyday");
        fixtures.action("alice", "cancelled", "Add an expense of 3.50");
        fixtures.action("bob", "proposed", "Bob's rename");
        ScriptedModel.use(script(ModelReply.toolCalls(new ToolCall("training_plans", "{}"),
                new ToolCall("training_plans", "{\"which\":\"draft\"}"),
                new ToolCall("pending_actions", "{\"pendingOnly\":true}"),
                new ToolCall("pending_actions", "{}"))));

        fixtures.chat("c-plans", "what is my training this week, and what waits for me?").statusCode(200);

        List<String> results = lastToolResults();
        assertThat(results.get(0)).startsWith("- active plan \"Marathon block\"").contains("Mon: 10 km")
                .contains("Spring draft").doesNotContain("Old plan").doesNotContain("Bob");
        assertThat(results.get(1)).contains("Spring draft").doesNotContain("Marathon");
        assertThat(results.get(2)).contains(waiting.toString()).contains("proposed")
                // (not "3.50" alone: an expiry time such as 03:50 or 03:38:53.509 contains it)
                .doesNotContain("Add an expense").doesNotContain("Bob");
        assertThat(results.get(3)).contains("Rename wallet to Everyday").contains("Add an expense of 3.50 (cancelled");
    }

    /**
     * One action by its id, the user's own only: bob's action, and an id nobody used, read alike; an id that is not one
     * is refused.
     */
    @Test
    void anActionsStatusIsTheUsersOwnOnly() throws Exception {
        UUID alices = fixtures.action("alice", "cancelled", "Add an expense of 3.50");
        UUID bobs = fixtures.action("bob", "proposed", "Bob's rename");
        UUID nobodys = UUID.randomUUID();
        ScriptedModel.use(script(ModelReply.toolCalls(
                new ToolCall("action_status", "{\"actionId\":\"" + alices + "\"}"),
                new ToolCall("action_status", "{\"actionId\":\"" + bobs + "\"}"),
                new ToolCall("action_status", "{\"actionId\":\"" + nobodys + "\"}"),
                new ToolCall("action_status", "{\"actionId\":\"42\"}"))));

        fixtures.chat("c-status", "what became of my expense?").statusCode(200);

        List<String> results = lastToolResults();
        assertThat(results.get(0)).isEqualTo("Action " + alices + ": Add an expense of 3.50 (cancelled, medium tier)");
        assertThat(results.get(1)).isEqualTo("The user has no action " + bobs + ".");
        assertThat(results.get(2)).isEqualTo("The user has no action " + nobodys + ".");
        assertThat(results.get(3)).startsWith("Refused, nothing was done: actionId must be an id");
    }

    /**
     * The model's natural retry (the same call again, e.g. after "pending") names the same action: its id derives from
     * the turn, the kind and the parameters, and the repeat is not published again.
     */
    @Test
    void aProposalRepeatedInTheSameTurnIsOneActionPublishedOnce() throws Exception {
        String coffee = "{\"wallet\":\"Checking\",\"amount\":\"3.5\",\"category\":\"coffee\"}";
        ScriptedModel.use(script(
                ModelReply.toolCalls(new ToolCall("propose_expense", coffee)),
                ModelReply.toolCalls(new ToolCall("propose_expense", coffee),
                        new ToolCall("propose_expense", coffee.replace("3.5", "4")))));

        var reply = fixtures.chat("c-repeat", "a coffee").statusCode(200).body("proposals", hasSize(2))
                .extract().jsonPath();

        List<String> ids = reply.getList("proposals.actionId", String.class);
        assertThat(lastToolResults()).hasSize(3);
        assertThat(lastToolResults().get(0)).contains("Staged action " + ids.get(0));
        assertThat(lastToolResults().get(1)).contains("already proposed exactly this").contains(ids.get(0));
        assertThat(lastToolResults().get(2)).contains("Staged action " + ids.get(1));
        List<String> published = kafka.readFor(Topics.ACTIONS_PROPOSED, value -> value.contains(fixtures.tenant),
                java.time.Duration.ofSeconds(3));
        // (the two records may sit on different partitions: their order as read is not their order as sent)
        List<String> publishedIds = new ArrayList<>();
        for (String record : published) {
            JsonNode event = Json.mapper().readTree(record);
            publishedIds.add(event.path("actionId").asText());
            assertThat(event.path("actionId").asText()).isEqualTo(ProposalIds.actionId(
                    UUID.fromString(event.path("turnId").asText()), ShippedKinds.CREATE_TRANSACTION,
                    event.path("paramsHash").asText()).toString());
        }
        assertThat(publishedIds).containsExactlyInAnyOrderElementsOf(ids);
    }

    @Test
    void everyProposeToolPublishesItsKindAndNothingElse() throws Exception {
        UUID coffee = fixtures.transaction(fixtures.checking, "3.50", "coffee", null, TODAY);
        UUID draft = fixtures.plan("alice", "Spring draft", "draft", "Tue: intervals");
        UUID caseId = UUID.randomUUID();
        ScriptedModel.use(script(ModelReply.toolCalls(
                new ToolCall("propose_expense", "{\"wallet\":\"Savings\",\"amount\":\"12.5\",\"category\":\"coffee\"}"),
                new ToolCall("propose_transaction_edit", "{\"transactionId\":\"" + coffee + "\",\"amount\":\"4\"}"),
                new ToolCall("propose_transaction_delete", "{\"transactionId\":\"" + coffee + "\"}"),
                new ToolCall("propose_wallet_rename", "{\"wallet\":\"Checking\",\"name\":\"Everyday\"}"),
                new ToolCall("propose_plan_draft", "{\"name\":\"Base\",\"startsOn\":\"" + TODAY
                        + "\",\"schedule\":\"Mon: 5 km\"}"),
                new ToolCall("propose_plan_revision", "{\"planId\":\"" + draft + "\",\"schedule\":\"Tue: 6 km\"}"),
                new ToolCall("propose_requestor_email", "{\"caseId\":\"" + caseId
                        + "\",\"subject\":\"Your refund\",\"body\":\"It is on its way.\"}"),
                new ToolCall("propose_ticket", "{\"title\":\"Refund\",\"description\":\"Check the refund\"}"))));

        var reply = fixtures.chat("c-propose", "do all of it").statusCode(200).body("proposals", hasSize(8))
                .body("ending", equalTo("ANSWERED")).extract().jsonPath();

        assertThat(reply.getList("proposals.kind", String.class)).containsExactly(
                ShippedKinds.CREATE_TRANSACTION, ShippedKinds.EDIT_TRANSACTION,
                ShippedKinds.DELETE_TRANSACTION, ShippedKinds.RENAME_WALLET, ShippedKinds.DRAFT_PLAN,
                ShippedKinds.REVISE_PLAN, ShippedKinds.SEND_MAIL, ShippedKinds.CREATE_TICKET);
        assertThat(lastToolResults()).hasSize(8).allSatisfy(result -> assertThat(result)
                .contains("NOT applied").contains("never say it is done"));
        List<String> published = kafka.read(Topics.ACTIONS_PROPOSED, value -> value.contains(fixtures.tenant),
                found -> found.size() == 8, java.time.Duration.ofSeconds(15));
        assertThat(published).hasSize(8);
        JsonNode expense = Json.mapper().readTree(published.stream()
                .filter(p -> p.contains(ShippedKinds.CREATE_TRANSACTION)).findFirst().orElseThrow());
        assertThat(expense.path("params").path("walletId").asText()).isEqualTo(fixtures.savings.toString());
        assertThat(expense.path("params").path("amount").asText()).isEqualTo("12.50");
        assertThat(expense.path("params").path("occurredOn").asText()).isEqualTo(TODAY.toString());
        JsonNode edit = Json.mapper().readTree(published.stream()
                .filter(p -> p.contains(ShippedKinds.EDIT_TRANSACTION)).findFirst().orElseThrow());
        assertThat(edit.path("params").toString()).isEqualTo(
                "{\"transactionId\":\"" + coffee + "\",\"amount\":\"4.00\"}");
    }

    @Test
    void refusedArgumentsNameWhatIsAllowedAndStageNothing() {
        ScriptedModel.use(script(ModelReply.toolCalls(
                new ToolCall("propose_transaction_delete", "{\"transactionId\":\"the coffee one\"}"),
                new ToolCall("propose_transaction_edit", "{\"transactionId\":\"" + UUID.randomUUID()
                        + "\",\"status\":\"executed\"}"),
                new ToolCall("propose_transaction_edit", "{\"transactionId\":\"" + UUID.randomUUID() + "\"}"),
                new ToolCall("propose_expense", "{\"wallet\":\"Checking\",\"amount\":\"5\",\"category\":\"bitcoin\"}"),
                new ToolCall("find_transactions", "{\"from\":\"last week\"}"))));

        fixtures.chat("c-refused", "do odd things").statusCode(200).body("proposals", hasSize(0));

        List<String> results = lastToolResults();
        assertThat(results).hasSize(5).allSatisfy(result -> assertThat(result).startsWith("Refused, nothing was done"));
        assertThat(results.get(0)).contains("transactionId: must be a UUID");
        assertThat(results.get(1)).contains("unknown argument(s) [status]").contains("amount").contains("description");
        assertThat(results.get(2)).contains("change at least one of [amount, category, description, occurredOn]");
        assertThat(results.get(3)).contains("\"bitcoin\" is not one of the allowed values").contains("groceries");
        assertThat(results.get(4)).contains("yyyy-MM-dd");
        assertThat(kafka.readFor(Topics.ACTIONS_PROPOSED, value -> value.contains(fixtures.tenant),
                java.time.Duration.ofSeconds(1))).isEmpty();
    }
}
