package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.Json;
import dev.countersign.contracts.json.ParamsHash;
import dev.countersign.devsupport.model.ModelTurn;
import dev.countersign.devsupport.testing.TopicRecords;

/**
 * The walking skeleton, end to end, through the same launcher the README's run command uses: the packaged services as
 * separate JVMs, a real PostgreSQL, a real Kafka broker, the real OpenAI client against the offline demo model.
 */
class LocalStackIT {

    private static StackSettings settings;
    private static LocalStack stack;

    @BeforeAll
    static void startTheStack() throws IOException {
        settings = TestStacks.withExecutors(1);
        stack = LocalStack.start(settings);
    }

    @AfterAll
    static void stopTheStack() {
        if (stack != null) {
            stack.close();
        }
    }

    /** The person's tokens, one per service, as a UI gets them: {@code [agent, executor]}. */
    private static String[] tokens(String tenant, String user) throws Exception {
        var answer = Http.post(stack.tokenUrl(), null, Map.of("tenant", tenant, "user", user));
        assertThat(answer.status()).isEqualTo(200);
        return new String[]{answer.body().get("agentToken").asText(), answer.body().get("executorToken").asText()};
    }

    private static Http.Answer chat(String bearer, String conversation, String text) throws Exception {
        return Http.post(stack.agentUrl() + "/api/conversations/" + conversation + "/messages", bearer,
                Map.of("text", text));
    }

    private static JsonNode checkingTransactions(String bearer) throws Exception {
        var answer = Http.get(stack.agentUrl() + "/api/wallets/" + LocalStack.ACME_CHECKING + "/transactions",
                bearer);
        assertThat(answer.status()).isEqualTo(200);
        return answer.body();
    }

    @Test
    void aProposedExpenseIsConfirmedByAPersonAndWrittenExactlyOnce() throws Exception {
        String[] aliceTokens = tokens("acme", "alice");
        String alice = aliceTokens[0];
        String aliceAtExecutor = aliceTokens[1];
        int before = checkingTransactions(alice).size();

        // 1. The agent proposes; the reply carries a read-only card: no confirm token exists in the agent.
        var reply = chat(alice, "e2e-1", "add a 12.50 coffee expense to Checking");
        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        assertThat(reply.body().get("reply").asText()).startsWith("[demo model]").contains("NOT applied");
        JsonNode card = reply.body().get("proposals").get(0);
        String actionId = card.get("actionId").asText();
        assertThat(card.has("confirmToken")).isFalse();
        assertThat(card.get("params").get("amount").asText()).isEqualTo("12.50");
        assertThat(card.get("params").get("walletId").asText()).isEqualTo(LocalStack.ACME_CHECKING.toString());
        assertThat(stack.model().requests().toString()).doesNotContain(alice).doesNotContain(aliceAtExecutor);

        // 2. The executor stages it from Kafka; nothing is written yet.
        await().atMost(Duration.ofSeconds(30)).until(
                () -> Http.get(stack.executorUrl() + "/api/actions/" + actionId, aliceAtExecutor).status() == 200);
        var staged = Http.get(stack.executorUrl() + "/api/actions/" + actionId, aliceAtExecutor).body();
        assertThat(staged.get("status").asText()).isEqualTo("proposed");
        assertThat(staged.get("paramsHash").asText()).isEqualTo(ParamsHash.of(card.get("params")));
        assertThat(checkingTransactions(alice).size()).isEqualTo(before);

        // The agent's token is no good at the executor, and another tenant cannot see or confirm it.
        assertThat(Http.post(stack.executorUrl() + "/api/actions/" + actionId + "/confirm", alice,
                Map.of("paramsHash", card.get("paramsHash").asText())).status()).isEqualTo(401);
        String carol = tokens("globex", "carol")[1];
        assertThat(Http.get(stack.executorUrl() + "/api/actions/" + actionId, carol).status()).isEqualTo(404);
        assertThat(Http.post(stack.executorUrl() + "/api/actions/" + actionId + "/confirm", carol,
                Map.of("paramsHash", card.get("paramsHash").asText())).status()).isEqualTo(404);

        // 3. A person confirms over HTTP: executed, once.
        var confirmed = Http.post(stack.executorUrl() + "/api/actions/" + actionId + "/confirm", aliceAtExecutor,
                Map.of("paramsHash", card.get("paramsHash").asText()));
        assertThat(confirmed.status()).as(confirmed.text()).isEqualTo(200);
        assertThat(confirmed.body().get("status").asText()).isEqualTo("executed");
        var again = Http.post(stack.executorUrl() + "/api/actions/" + actionId + "/confirm", aliceAtExecutor,
                Map.of("paramsHash", card.get("paramsHash").asText()));
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.body().get("action").get("status").asText()).isEqualTo("executed");

        JsonNode transactions = checkingTransactions(alice);
        assertThat(transactions.size()).isEqualTo(before + 1);
        assertThat(transactions.get(0).get("amount").asText()).isEqualTo("12.50");
        assertThat(transactions.get(0).get("category").asText()).isEqualTo("coffee");

        // 4. The outcome reaches the agent, so the next turn's model context knows the expense was added.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> {
            stack.model().clearRequests();
            chat(alice, "e2e-1", "what happened?");
            return new ModelTurn(stack.model().requests().get(0)).systemText().contains(actionId + " (");
        });
        String system = new ModelTurn(stack.model().requests().get(0)).systemText();
        assertThat(system).contains("confirmed by alice and executed");

        // After the whole flow neither bearer token is in any service's log, any table, or any event body.
        List<String> secrets = List.of(alice, aliceAtExecutor);
        for (String log : new String[]{"agent-service.log", "executor-service.log"}) {
            assertThat(Files.readString(settings.logDirectory().resolve(log))).doesNotContain(secrets);
        }
        try (var owner = stack.ownerConnection()) {
            var tables = owner.createStatement().executeQuery(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
            List<String> names = new ArrayList<>();
            while (tables.next()) {
                names.add(tables.getString(1));
            }
            assertThat(names).contains("actions", "transactions", "outbox", "action_history");
            for (String table : names) {
                var hits = owner.prepareStatement("SELECT count(*) FROM " + table + " t WHERE t::text LIKE ?");
                for (String secret : secrets) {
                    hits.setString(1, "%" + secret + "%");
                    var count = hits.executeQuery();
                    count.next();
                    assertThat(count.getInt(1)).as(table).isZero();
                }
            }
        }
        var kafka = new TopicRecords(stack.bootstrapServers());
        for (String topic : new String[]{Topics.ACTIONS_PROPOSED, Topics.ACTIONS_OUTCOMES}) {
            List<String> all = kafka.readFor(topic, value -> true, Duration.ofSeconds(3));
            assertThat(all).as(topic).isNotEmpty()
                    .noneMatch(value -> secrets.stream().anyMatch(value::contains));
        }
    }

    /** With agent writes enabled (the stack's own default), a LOW expense applies on arrival and can be undone. */
    @Test
    void aSmallExpenseAppliesOnArrivalWhereAgentWritesAreEnabledAndCanBeUndone() throws Exception {
        String[] carol = tokens("globex", "carol");
        // Turning agent writes on weakens protection: a second administrator of globex confirms it.
        TwoAdministrators.set(stack.executorUrl(), carol[1], stack.tokens().mint("globex", "admin-2",
                dev.countersign.contracts.Audiences.EXECUTOR, java.time.Duration.ofMinutes(10)), "agent-writes",
                Map.of("mode", "enabled"));

        var reply = chat(carol[0], "e2e-auto", "add a 7.00 coffee expense to Operating");
        assertThat(reply.status()).isEqualTo(200);
        String actionId = reply.body().get("proposals").get(0).get("actionId").asText();
        String actionUrl = stack.executorUrl() + "/api/actions/" + actionId;
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            var view = Http.get(actionUrl, carol[1]);
            return view.status() == 200 && "executed".equals(view.body().get("status").asText());
        });
        assertThat(Http.get(actionUrl, carol[1]).body().get("autoApplied").asBoolean()).isTrue();

        var undone = Http.post(actionUrl + "/undo", carol[1], Map.of());
        assertThat(undone.status()).isEqualTo(200);
        assertThat(undone.body().get("status").asText()).isEqualTo("undone");
    }

    @Test
    void requestsWithoutATokenAreRefused() throws Exception {
        var chat = Http.post(stack.agentUrl() + "/api/conversations/e2e-2/messages", null, Map.of("text", "hi"));
        var wallets = Http.get(stack.agentUrl() + "/api/wallets", null);

        assertThat(chat.status()).isEqualTo(401);
        assertThat(wallets.status()).isEqualTo(401);
        assertThat(Json.mapper().readTree(chat.text()).get("code").asText()).isEqualTo("unauthenticated");
    }

    @Test
    void dataSurvivesARestartOfTheWholeStack() throws Exception {
        String[] alice = tokens("acme", "alice");
        var reply = chat(alice[0], "e2e-3", "add a 3.20 tea expense to Savings");
        JsonNode card = reply.body().get("proposals").get(0);
        String actionId = card.get("actionId").asText();
        await().atMost(Duration.ofSeconds(30)).until(
                () -> Http.get(stack.executorUrl() + "/api/actions/" + actionId, alice[1]).status() == 200);

        stack.close();
        stack = LocalStack.start(settings);

        String aliceAgain = tokens("acme", "alice")[1];
        var afterRestart = Http.get(stack.executorUrl() + "/api/actions/" + actionId, aliceAgain);
        assertThat(afterRestart.status()).isEqualTo(200);
        assertThat(afterRestart.body().get("status").asText()).isEqualTo("proposed");
        var confirmed = Http.post(stack.executorUrl() + "/api/actions/" + actionId + "/confirm", aliceAgain,
                Map.of("paramsHash",
                        card.get("paramsHash").asText()));
        assertThat(confirmed.status()).as(confirmed.text()).isEqualTo(200);
    }
}
