package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.ContractFixtures;
import dev.countersign.contracts.KafkaHeaders;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.events.PlanEvent;
import dev.countersign.contracts.events.PlanFellShort;
import dev.countersign.contracts.events.PlanRefused;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;

/** The conversation ledger: turns consumed from Kafka, appended once, bad records parked, the table append-only. */
@QuarkusTest
@ExecutorTestResources
class ConversationLedgerTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private String tenant;

    @BeforeEach
    void freshTenant() {
        tenant = "t-" + UUID.randomUUID();
    }

    /** The golden turn, as a fresh event of this test's tenant. */
    private ObjectNode turn(String conversationId) {
        ObjectNode turn = (ObjectNode) ContractFixtures.tree(ContractFixtures.TURN_RECORDED);
        return turn.put("eventId", UUID.randomUUID().toString()).put("turnId", UUID.randomUUID().toString())
                .put("tenantId", tenant).put("conversationId", conversationId);
    }

    /** Sends {@code event} with its user's agent token as evidence, as agent-service does. */
    private void sendSigned(String key, Object event) {
        var tree = Json.mapper().valueToTree(event);
        kafka.send(Topics.CONVERSATION_EVENTS, key, Json.write(event), java.util.Map.of(KafkaHeaders.EVIDENCE,
                TestProperties.agentBearer(tree.get("tenantId").asText(), tree.get("userId").asText())));
    }

    private int rows(String conversationId) throws SQLException {
        return Db.count("SELECT count(*) FROM conversation_events WHERE tenant_id = ? AND conversation_id = ?",
                tenant, conversationId);
    }

    @Test
    void aTurnIsAppendedOnceEvenWhenDeliveredTwiceAndKeepsItsPayload() throws Exception {
        ObjectNode turn = turn("c-1");
        sendSigned("c-1", turn);
        sendSigned("c-1", turn);
        ObjectNode next = turn("c-1");
        sendSigned("c-1", next);

        await().atMost(Duration.ofSeconds(15)).until(() -> rows("c-1") == 2);
        assertThat(Db.text("SELECT string_agg(turn_id::text, ',' ORDER BY position) FROM conversation_events"
                + " WHERE tenant_id = ?", tenant)).isEqualTo(turn.get("turnId").asText() + ","
                        + next.get("turnId").asText());
        assertThat(Db.text("SELECT payload ->> 'userText' FROM conversation_events WHERE event_id = ?::uuid",
                turn.get("eventId").asText())).isEqualTo("add a 12.50 coffee expense to Checking");
    }

    @Test
    void everyOutcomeOfAConversationsActionIsAppendedInTheTransactionThatCausedIt() throws Exception {
        TestTenant withWallet = TestTenant.withCheckingWallet();
        var proposal = new ProposalMother(withWallet, "12.50");
        String conversation = proposal.event.get("conversationId").asText();
        proposal.stage(kafka);
        proposal.decide("confirm", withWallet.executorBearer("alice")).then().statusCode(200);
        var refused = new ProposalMother(withWallet, "-1");
        refused.send(kafka);

        await().atMost(Duration.ofSeconds(15)).until(() -> Db.count("SELECT count(*) FROM conversation_events"
                + " WHERE tenant_id = ? AND payload ->> 'actionId' = ?", withWallet.id(),
                refused.actionId.toString()) == 1);
        assertThat(Db.text("SELECT string_agg(type, ',' ORDER BY position) FROM conversation_events"
                + " WHERE tenant_id = ? AND conversation_id = ? AND payload ->> 'actionId' = ?", withWallet.id(),
                conversation, proposal.actionId.toString())).isEqualTo("ActionStaged,ActionExecuted");
        assertThat(Db.text("SELECT type || ' ' || (payload ->> 'code') FROM conversation_events"
                + " WHERE payload ->> 'actionId' = ?", refused.actionId.toString()))
                .isEqualTo("ActionRejected validation_failed");
    }

    @Test
    void unreadableAndInvalidTurnsGoToTheDeadLetterTopicAndAreNotAppended() throws Exception {
        String marker = UUID.randomUUID().toString();
        kafka.send(Topics.CONVERSATION_EVENTS, "c-x", "{\"not a turn\": \"" + marker + "\"");
        ObjectNode badId = turn("c-2").put("conversationId", "no spaces allowed " + marker);
        sendSigned("c-2", badId);

        assertThat(kafka.read(Topics.CONVERSATION_EVENTS_DEAD_LETTER, value -> value.contains(marker),
                found -> found.size() == 2, Duration.ofSeconds(15))).hasSize(2);
        assertThat(Db.count("SELECT count(*) FROM conversation_events WHERE tenant_id = ?", tenant)).isZero();
    }

    /**
     * The JSON literal {@code null} read as a null turn, which then threw before the consumer returned a Uni: it is
     * parked as unreadable (not as a NullPointerException) and the turn behind it on the same partition is appended.
     */
    @Test
    void aJsonNullTurnIsParkedAsUnreadableAndTheNextTurnIsAppended() throws Exception {
        String conversation = "c-null-" + UUID.randomUUID().toString().substring(0, 8);

        kafka.send(Topics.CONVERSATION_EVENTS, conversation, "null", java.util.Map.of(KafkaHeaders.EVIDENCE,
                TestProperties.agentBearer(tenant, "alice")));
        sendSigned(conversation, turn(conversation));

        await().atMost(Duration.ofSeconds(15)).until(() -> rows(conversation) == 1);
        var parked = kafka.awaitKey(Topics.CONVERSATION_EVENTS_DEAD_LETTER, conversation, Duration.ofSeconds(15));
        assertThat(parked).hasSize(1);
        assertThat(parked.get(0).value()).isEqualTo("null");
        assertThat(KafkaCompanion.getHeader(parked.get(0).headers(), "dead-letter-reason")).contains("unreadable")
                .contains("JSON null");
    }

    @Test
    void aPlanTurnsDeliverableIsAppendedOnceUnderItsOwnTypeAndAnInvalidOneIsParked() throws Exception {
        UUID turnId = UUID.randomUUID();
        PlanRefused refused = new PlanRefused(UUID.randomUUID(), PlanEvent.SCHEMA_VERSION, Instant.now(), tenant,
                "alice", "c-plan", turnId, "the inventory has no rentals table", null);
        sendSigned("c-plan", refused);
        sendSigned("c-plan", refused);
        String marker = UUID.randomUUID().toString();
        PlanFellShort badId = new PlanFellShort(UUID.randomUUID(), PlanEvent.SCHEMA_VERSION, Instant.now(), tenant,
                "alice", "no spaces allowed", turnId, marker);
        sendSigned("c-plan", badId);
        sendSigned("c-plan", turn("c-plan"));

        await().atMost(Duration.ofSeconds(15)).until(() -> rows("c-plan") == 2);
        assertThat(Db.text("SELECT string_agg(type || ' ' || turn_id, ',' ORDER BY position) FROM conversation_events"
                + " WHERE tenant_id = ? AND conversation_id = ? AND type <> 'TurnRecorded'", tenant, "c-plan"))
                .isEqualTo("PlanRefused " + turnId);
        assertThat(kafka.read(Topics.CONVERSATION_EVENTS_DEAD_LETTER, value -> value.contains(marker),
                found -> found.size() == 1, Duration.ofSeconds(15))).hasSize(1);
    }

    @Test
    void theApplicationRoleCanAppendButNeitherChangeNorDeleteTheLedger() throws Exception {
        sendSigned("c-3", turn("c-3"));
        await().atMost(Duration.ofSeconds(15)).until(() -> rows("c-3") == 1);

        Db.refusedAsApplication(tenant, "42501", "UPDATE conversation_events SET payload = '{}'",
                "DELETE FROM conversation_events");
        assertThat(rows("c-3")).isEqualTo(1);
    }
}
