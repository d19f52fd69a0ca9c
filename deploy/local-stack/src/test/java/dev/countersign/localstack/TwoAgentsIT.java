package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.model.ModelTurn;

/**
 * Two agent-service replicas behind no affinity at all: each turn of one conversation goes to the other replica as soon
 * as the previous reply arrived, and still sees every earlier turn (the ledger, through executor-service: a reply says
 * {@code recorded} only once its turn is there), and the outcome of what was confirmed in between. On the shared stack
 * ({@link SharedStacks}, which runs two agents), with a tenant of its own.
 */
@ResourceLock(SharedStacks.LOCK)
class TwoAgentsIT {

    @Test
    void aConversationContinuesOnTheOtherReplicaWithItsHistoryAndOutcomes() throws Exception {
        LocalStack stack = SharedStacks.twoExecutors();
        String tenant = "replicas-" + UUID.randomUUID();
        try (Connection owner = stack.ownerConnection()) {
            DemoData.createWallet(owner, tenant, "alice", "Checking", "EUR");
        }
        var tokens = Http.post(stack.tokenUrl(), null, Map.of("tenant", tenant, "user", "alice")).body();
        String agent = tokens.get("agentToken").asText();
        String executor = tokens.get("executorToken").asText();
        List<String> replicas = stack.agentUrls();
        String conversation = "/api/conversations/two-replicas/messages";

        var first = Http.post(replicas.get(0) + conversation, agent,
                Map.of("text", "add a 12.50 coffee expense to Checking"));
        assertThat(first.status()).as(first.text()).isEqualTo(200);
        assertThat(first.body().get("recorded").asBoolean()).isTrue();
        JsonNode card = first.body().get("proposals").get(0);
        String actionId = card.get("actionId").asText();

        stack.model().clearRequests();
        var second = Http.post(replicas.get(1) + conversation, agent, Map.of("text", "list my wallets"));
        assertThat(second.status()).as(second.text()).isEqualTo(200);
        String seenBySecond = stack.model().requests().get(0).toString();
        assertThat(seenBySecond).contains("add a 12.50 coffee expense to Checking").contains(actionId);

        await().atMost(Duration.ofSeconds(30)).until(() -> Http.get(stack.executorUrl() + "/api/actions/"
                + actionId, executor).status() == 200);
        var confirmed = Http.post(stack.executorUrl() + "/api/actions/" + actionId + "/confirm", executor,
                Map.of("paramsHash", card.get("paramsHash").asText()));
        assertThat(confirmed.status()).as(confirmed.text()).isEqualTo(200);

        // The outcome reaches a turn on either replica (the executor appended it to the conversation's ledger).
        for (String replica : replicas) {
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(300)).until(() -> {
                stack.model().clearRequests();
                Http.post(replica + conversation, agent, Map.of("text", "list my wallets"));
                return new ModelTurn(stack.model().requests().get(0)).systemText().contains(actionId + " ")
                        && new ModelTurn(stack.model().requests().get(0)).systemText().contains("executed");
            });
        }
        var history = Http.get(replicas.get(1) + "/api/conversations/two-replicas", agent).body();
        assertThat(history.get("turns").size()).isGreaterThanOrEqualTo(4);
        assertThat(history.get("turns").get(0).get("userText").asText())
                .isEqualTo("add a 12.50 coffee expense to Checking");
    }
}
