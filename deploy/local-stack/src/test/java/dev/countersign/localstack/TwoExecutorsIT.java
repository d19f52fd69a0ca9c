package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.math.BigDecimal;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Audiences;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.Race;

/**
 * Two executor-service processes on one database and one broker, under concurrent confirms split between them: every
 * action is executed exactly once, and every loser learns the winner's status. On the shared stack
 * ({@link SharedStacks}), each test with a tenant of its own.
 */
@ResourceLock(SharedStacks.LOCK)
class TwoExecutorsIT {

    private static final int ACTIONS = 8;
    private static final int CONFIRMS_PER_ACTION = 32;

    @Test
    void concurrentConfirmsOnTwoInstancesExecuteEachActionExactlyOnce() throws Exception {
        LocalStack stack = SharedStacks.twoExecutors();
        String tenant = "two-" + UUID.randomUUID();
        UUID operating;
        try (Connection owner = stack.ownerConnection()) {
            operating = DemoData.createWallet(owner, tenant, "carol", "Operating", "USD");
        }
        var tokens = Http.post(stack.tokenUrl(), null, Map.of("tenant", tenant, "user", "carol")).body();
        String agent = tokens.get("agentToken").asText();
        String executor = tokens.get("executorToken").asText();
        List<String[]> cards = new ArrayList<>();
        for (int i = 0; i < ACTIONS; i++) {
            var reply = Http.post(stack.agentUrl() + "/api/conversations/load-" + i + "/messages", agent,
                    Map.of("text", "add a " + (i + 1) + ".00 coffee expense to Operating"));
            JsonNode card = reply.body().get("proposals").get(0);
            cards.add(new String[]{card.get("actionId").asText(), card.get("paramsHash").asText()});
        }
        for (String[] card : cards) {
            await().atMost(Duration.ofSeconds(30)).until(() -> Http.get(stack.executorUrls().get(1)
                    + "/api/actions/" + card[0], executor).status() == 200);
        }

        for (String[] card : cards) {
            List<Callable<Http.Answer>> confirms = new ArrayList<>();
            for (int i = 0; i < CONFIRMS_PER_ACTION; i++) {
                String url = stack.executorUrls().get(i % 2) + "/api/actions/" + card[0] + "/confirm";
                confirms.add(() -> Http.post(url, executor, Map.of("paramsHash", card[1])));
            }
            int executed = 0;
            int refused = 0;
            for (Http.Answer result : Race.together(confirms)) {
                if (result.status() == 200) {
                    executed++;
                } else {
                    assertThat(result.status()).as(result.text()).isEqualTo(409);
                    assertThat(result.body().get("action").get("status").asText()).isEqualTo("executed");
                    refused++;
                }
            }
            assertThat(executed).as("winners for " + card[0]).isEqualTo(1);
            assertThat(refused).isEqualTo(CONFIRMS_PER_ACTION - 1);
        }

        var ledger = Http.get(stack.agentUrl() + "/api/wallets/" + operating + "/transactions",
                agent).body();
        assertThat(ledger.size()).isEqualTo(ACTIONS);
    }

    /**
     * 200 LOW expenses of one user, each from a turn of its own (as a compromised agent would mint them), staged by two
     * executor instances at once: the automatic applications stay within the user's daily budget in count and in sum,
     * and every other proposal waits for a person with the reason.
     */
    @Test
    void concurrentLowProposalsOverTwoExecutorsApplyAtMostTheBudget() throws Exception {
        int proposals = 200;
        LocalStack stack = SharedStacks.twoExecutors();
        try (KafkaProducer<String, String> producer = StackAccess.producer(stack.bootstrapServers())) {
            String tenant = "budget-" + UUID.randomUUID();
            UUID wallet;
            try (Connection owner = stack.ownerConnection()) {
                wallet = DemoData.createWallet(owner, tenant, "alice", "Checking", "EUR");
            }
            String admin = stack.tokens().mint(tenant, "admin", Audiences.EXECUTOR, Duration.ofHours(1));
            String secondAdmin = stack.tokens().mint(tenant, "admin-2", Audiences.EXECUTOR, Duration.ofHours(1));
            TwoAdministrators.set(stack.executorUrl(), admin, secondAdmin, "agent-writes", Map.of("mode", "enabled"));
            // 25 actions or 60.00 a day for a user: at 3.00 each the amount binds first, at 20.
            TwoAdministrators.set(stack.executorUrl(), admin, secondAdmin, "auto-apply-budget",
                    Map.of("turnCount", 1000, "turnAmount", "100000", "userDayCount", 25, "userDayAmount", "60.00",
                            "tenantDayCount", 1000, "tenantDayAmount", "100000"));

            String evidence = AgentEvidence.of(stack, tenant, "alice");
            for (int i = 0; i < proposals; i++) {
                ExpenseProposal expense = ExpenseProposal.of(tenant, "alice", wallet, new BigDecimal("3.00"),
                        "coffee", "budget " + i, "c-budget");
                producer.send(AgentEvidence.proposal(expense, evidence));
            }
            producer.flush();
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                    .until(() -> StackAccess.count(stack, "SELECT count(*) FROM actions WHERE tenant_id = ?",
                            tenant) == proposals);

            assertThat(
                    StackAccess.count(stack, "SELECT count(*) FROM actions WHERE tenant_id = ? AND status = 'executed'"
                            + " AND auto_applied", tenant))
                    .isEqualTo(20);
            assertThat(StackAccess.count(stack,
                    "SELECT coalesce(sum(amount), 0) * 100 FROM transactions WHERE tenant_id = ?",
                    tenant)).isEqualTo(6000);
            assertThat(
                    StackAccess.count(stack, "SELECT count(*) FROM actions WHERE tenant_id = ? AND status = 'proposed'"
                            + " AND held_reason LIKE '%budget for today%'", tenant))
                    .isEqualTo(proposals - 20);
        }
    }
}
