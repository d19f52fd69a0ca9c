package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.ContractFixtures;
import dev.countersign.contracts.KafkaHeaders;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.ReliabilityReport;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Every consumed topic with its events duplicated and out of order, as a redelivering broker, a retrying integration or
 * a replayed partition delivers them. Each event is sent twice and the whole batch shuffled (a fixed seed, printed in
 * the failure), with random keys, so the events of one action land on different partitions and are consumed in no
 * particular order. What must hold: each action decided once (executed once or cancelled, never both), each turn
 * appended once, each proposal staged once.
 */
@QuarkusTest
@ExecutorTestResources
class ReorderedEventsTest {

    private static final long SEED = 19L;
    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    private record Keyed(String topic, String value, java.util.Map<String, String> headers) {
    }

    /** Sends every event twice, in one shuffled order, each under a random key (any partition). */
    private void sendTwiceShuffled(List<Keyed> events) {
        List<Keyed> all = new ArrayList<>(events);
        all.addAll(events);
        Collections.shuffle(all, new Random(SEED));
        for (Keyed event : all) {
            kafka.send(event.topic(), UUID.randomUUID().toString(), event.value(), event.headers());
        }
    }

    @Test
    void aConfirmAndACancelOfEachActionTwiceInAnyOrderDecideItOnce() throws Exception {
        List<ProposalMother> actions = new ArrayList<>();
        List<Keyed> decisions = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ProposalMother proposal = ProposalMother.staged(kafka, tenant, "1%d.00".formatted(i));
            String token = proposal.tokenFromExecutor();
            for (String decision : List.of("confirm", "cancel")) {
                ObjectNode event = proposal.decided(decision, token);
                decisions.add(new Keyed(Topics.ACTIONS_DECISIONS, Json.write(event), java.util.Map.of()));
            }
            actions.add(proposal);
        }

        sendTwiceShuffled(decisions);

        await().atMost(Duration.ofSeconds(30)).until(() -> Db.count(
                "SELECT count(*) FROM actions WHERE tenant_id = ? AND status IN ('executed', 'cancelled')",
                tenant.id()) == actions.size());
        int executed = Db.count("SELECT count(*) FROM actions WHERE tenant_id = ? AND status = 'executed'",
                tenant.id());
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> Db.count(
                "SELECT count(*) FROM transactions WHERE tenant_id = ? AND source_action_id IS NOT NULL",
                tenant.id()) == executed);
        long doubled = 0;
        for (ProposalMother action : actions) {
            String status = Db.status(action.actionId);
            int decided = Db.count("SELECT count(*) FROM action_history WHERE action_id = ?"
                    + " AND to_status IN ('confirmed', 'cancelled')", action.actionId);
            assertThat(decided).as("seed %d, action %s: decisions that took effect", SEED, action.actionId)
                    .isEqualTo(1);
            assertThat(action.ledgerRows()).as("seed %d, action %s", SEED, action.actionId)
                    .isEqualTo("executed".equals(status) ? 1 : 0);
            doubled += Math.max(0, action.ledgerRows() - 1);
        }
        ReliabilityReport.record(new ReliabilityReport.Row(getClass().getSimpleName(),
                "8 actions, a confirm and a cancel each", "every decision event twice, shuffled, any partition",
                decisions.size() * 2L, 0, doubled, 0));
    }

    @Test
    void turnsDeliveredTwiceAndOutOfOrderAreEachAppendedOnce() throws Exception {
        List<Keyed> turns = new ArrayList<>();
        List<String> turnIds = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ObjectNode turn = (ObjectNode) ContractFixtures.tree(ContractFixtures.TURN_RECORDED);
            turn.put("eventId", UUID.randomUUID().toString()).put("turnId", UUID.randomUUID().toString())
                    .put("tenantId", tenant.id()).put("conversationId", "c-reordered");
            turnIds.add(turn.get("turnId").asText());
            turns.add(new Keyed(Topics.CONVERSATION_EVENTS, Json.write(turn), java.util.Map.of(KafkaHeaders.EVIDENCE,
                    TestProperties.agentBearer(tenant.id(), turn.get("userId").asText()))));
        }

        sendTwiceShuffled(turns);

        await().atMost(Duration.ofSeconds(30)).until(() -> rows() == turnIds.size());
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> rows() == turnIds.size());
        for (String turnId : turnIds) {
            assertThat(Db.count("SELECT count(*) FROM conversation_events WHERE tenant_id = ? AND turn_id = ?::uuid",
                    tenant.id(), turnId)).as("seed %d, turn %s", SEED, turnId).isEqualTo(1);
        }
        ReliabilityReport.record(new ReliabilityReport.Row(getClass().getSimpleName(), "6 turns of a conversation",
                "every turn event twice, shuffled, any partition", turns.size() * 2L, 0, 0, 0));
    }

    @Test
    void proposalsDeliveredTwiceAndAsCopiesInAnyOrderAreEachStagedOnce() throws Exception {
        List<Keyed> proposals = new ArrayList<>();
        List<ProposalMother> mothers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ProposalMother proposal = new ProposalMother(tenant, "2%d.00".formatted(i));
            String original = proposal.json();
            // A copy under a new event id: the agent re-sending, or the model repeating the proposal in its turn.
            String copy = Json.write(((ObjectNode) Json.mapper().readTree(original)).put("eventId",
                    UUID.randomUUID().toString()));
            var headers = java.util.Map.of(KafkaHeaders.EVIDENCE, TestProperties.agentBearer(tenant.id(),
                    proposal.event.get("userId").asText()));
            proposals.add(new Keyed(Topics.ACTIONS_PROPOSED, original, headers));
            proposals.add(new Keyed(Topics.ACTIONS_PROPOSED, copy, headers));
            mothers.add(proposal);
        }

        sendTwiceShuffled(proposals);

        await().atMost(Duration.ofSeconds(30)).until(() -> Db.count(
                "SELECT count(*) FROM actions WHERE tenant_id = ?", tenant.id()) == mothers.size());
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> Db.count(
                "SELECT count(*) FROM outbox WHERE tenant_id = ?", tenant.id()) == mothers.size());
        for (ProposalMother proposal : mothers) {
            assertThat(Db.count("SELECT count(*) FROM outbox WHERE message_key = ?", proposal.actionId.toString()))
                    .as("seed %d, action %s: one ActionStaged, no rejection", SEED, proposal.actionId).isEqualTo(1);
        }
        ReliabilityReport.record(new ReliabilityReport.Row(getClass().getSimpleName(), "6 proposals",
                "each event twice plus a copy under a new event id, shuffled, any partition", proposals.size() * 2L,
                0, 0, 0));
    }

    private int rows() throws java.sql.SQLException {
        return Db.count("SELECT count(*) FROM conversation_events WHERE tenant_id = ? AND conversation_id = ?",
                tenant.id(), "c-reordered");
    }
}
