package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Topics;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.devsupport.testing.MetricsText;
import dev.countersign.devsupport.testing.TopicRecords;
import dev.countersign.executor.messaging.KeyedLanes;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Staging in batches (GroupCommit, StagingService.stage): proposals that arrive while every staging transaction is busy
 * are staged together, in one transaction, and a batch that fails as a whole is staged again one proposal at a time, so
 * only the proposal PostgreSQL refuses is refused.
 * <p>
 * How the transactions are kept busy: this test's uncommitted claim of each blocker proposal's event id in
 * processed_events, which the blocker's staging transaction waits for; the proposals sent next wait for a transaction
 * (countersign_staging_waiting counts them), and the test's rollback lets everything go.
 */
@QuarkusTest
@ExecutorTestResources
class StagingBatchTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @ConfigProperty(name = "countersign.proposals.lanes")
    int proposalLanes;

    @ConfigProperty(name = "countersign.proposals.transactions")
    int transactions;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    @Test
    void proposalsWaitingForABusyTransactionAreStagedTogetherEachAsItsRequestersMove() throws Exception {
        List<Integer> lanesTaken = new ArrayList<>();
        var alices = distinctLane(lanesTaken, "3.00");
        var bobs = distinctLane(lanesTaken, "4.00").by("bob");
        var alicesSecond = distinctLane(lanesTaken, "5.00");

        try (var owner = Db.owner()) {
            occupyEveryTransaction(owner, lanesTaken);
            alices.send(kafka);
            bobs.send(kafka);
            alicesSecond.send(kafka);
            awaitWaiting(3);
            owner.rollback();
        }

        for (var proposal : List.of(alices, bobs, alicesSecond)) {
            Db.awaitStatus(proposal.actionId, "proposed");
        }
        assertThat(Db.count("SELECT count(DISTINCT xmin::text) FROM actions WHERE id IN (?, ?, ?)", alices.actionId,
                bobs.actionId, alicesSecond.actionId)).as("stored by one transaction").isEqualTo(1);
        assertThat(Db.text("SELECT actor FROM action_history WHERE action_id = ? AND to_status = 'proposed'",
                bobs.actionId)).isEqualTo("bob");
        assertThat(Db.text("SELECT actor FROM action_history WHERE action_id = ? AND to_status = 'proposed'",
                alices.actionId)).isEqualTo("alice");
        for (var proposal : List.of(alices, bobs, alicesSecond)) {
            assertThat(kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(proposal.actionId.toString())))
                    .singleElement().asString().contains("ActionStaged");
        }
    }

    @Test
    void aBatchThatFailsIsStagedAgainOneByOneSoOnlyTheProposalPostgresRefusesIsRefused() throws Exception {
        List<Integer> lanesTaken = new ArrayList<>();
        var poisoned = distinctLane(lanesTaken, "13.13");
        var good = distinctLane(lanesTaken, "6.00");
        double restaged = metric("countersign_staging_restaged_alone_total");
        try (var owner = Db.owner()) {
            owner.createStatement().execute("""
                    CREATE FUNCTION test_refuse_poisoned() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        RAISE EXCEPTION 'planted by StagingBatchTest' USING ERRCODE = 'check_violation';
                    END $$;
                    CREATE TRIGGER test_refuse_poisoned BEFORE INSERT ON actions FOR EACH ROW
                        WHEN (NEW.params->>'amount' = '13.13') EXECUTE FUNCTION test_refuse_poisoned();
                    """);
        }
        try {
            try (var owner = Db.owner()) {
                occupyEveryTransaction(owner, lanesTaken);
                poisoned.send(kafka);
                good.send(kafka);
                awaitWaiting(2);
                owner.rollback();
            }

            Db.awaitStatus(good.actionId, "proposed");
            assertThat(kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(poisoned.actionId.toString())))
                    .singleElement().asString().contains("ActionRejected").contains("validation_failed")
                    .contains("could not be stored");
            assertThat(Db.status(poisoned.actionId)).isNull();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                    metric("countersign_staging_restaged_alone_total")).isEqualTo(restaged + 2));
        } finally {
            try (var owner = Db.owner()) {
                owner.createStatement().execute("DROP TRIGGER test_refuse_poisoned ON actions;"
                        + " DROP FUNCTION test_refuse_poisoned()");
            }
        }
    }

    /**
     * One batch holding one proposal of every kind of answer: it waits for a person (HIGH), is refused by a rule
     * (invalid parameters), is a redelivery of a staged proposal, a copy of a staged action under a new event id, comes
     * from a tainted turn (held), is applied on arrival (LOW), and two MEDIUM renames of one wallet by a user whose
     * agent earned trust, both applied on arrival: the second reads the wallet after the first renamed it (a snapshot
     * read with the batch's would carry a stale version, and its guarded write would fail). Each gets exactly its
     * outcome, all in one transaction.
     */
    @Test
    void aBatchOfEveryKindOfAnswerAnswersEachAloneInOneTransaction() throws Exception {
        TenantPolicies.set(tenant.id(), "agent-writes", Map.of("mode", "enabled"));
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate(("INSERT INTO user_trust (tenant_id, user_id,"
                    + " medium_confirmed_in_a_row) VALUES ('%s', 'alice', 100)").formatted(tenant.id()));
        }
        List<Integer> lanesTaken = new ArrayList<>();
        var redelivered = distinctLane(lanesTaken, () -> new ProposalMother(tenant, "900.00")).stage(kafka);
        var copied = distinctLane(lanesTaken, () -> new ProposalMother(tenant, "901.00")).stage(kafka);
        var waiting = distinctLane(lanesTaken, () -> new ProposalMother(tenant, "800.00"));
        var invalid = distinctLane(lanesTaken, () -> new ProposalMother(tenant, "-3.00"));
        var tainted = distinctLane(lanesTaken, () -> new ProposalMother(tenant, "7.00"));
        tainted.event.put("contextClean", false);
        var applied = distinctLane(lanesTaken, () -> new ProposalMother(tenant, "8.00"));
        var firstRename = distinctLane(lanesTaken, () -> rename("First"));
        var secondRename = distinctLane(lanesTaken, () -> rename("Second"));

        try (var owner = Db.owner()) {
            occupyEveryTransaction(owner, lanesTaken);
            waiting.send(kafka);
            invalid.send(kafka);
            redelivered.send(kafka);
            copied.event.put("eventId", UUID.randomUUID().toString());
            copied.send(kafka);
            tainted.send(kafka);
            applied.send(kafka);
            firstRename.send(kafka);
            secondRename.send(kafka);
            awaitWaiting(8);
            owner.rollback();
        }

        Db.awaitStatus(applied.actionId, "executed");
        Db.awaitStatus(secondRename.actionId, "executed");
        assertThat(Db.status(firstRename.actionId)).isEqualTo("executed");
        assertThat(Db.text("SELECT name FROM wallets WHERE id = ?", tenant.wallet())).isEqualTo("Second");
        assertThat(Db.status(waiting.actionId)).isEqualTo("proposed");
        assertThat(Db.status(tainted.actionId)).isEqualTo("proposed");
        assertThat(Db.text("SELECT held_reason FROM actions WHERE id = ?", tainted.actionId)).contains("read text");
        assertThat(Db.status(invalid.actionId)).isNull();
        // Stamped with one transaction's start (now()); the rows applied on arrival were updated in subtransactions,
        // so their xmin differs.
        assertThat(Db.count("SELECT count(DISTINCT proposed_at) FROM actions WHERE id IN (?, ?, ?, ?, ?)",
                waiting.actionId, tainted.actionId, applied.actionId, firstRename.actionId, secondRename.actionId))
                .as("stored by one transaction").isEqualTo(1);
        try (var owner = Db.owner()) {
            // The batch committed as a whole: each of its outcomes is in the outbox now, and nothing else.
            assertThat(outbox(owner, invalid)).containsExactly("ActionRejected");
            assertThat(outbox(owner, redelivered)).as("a redelivery adds nothing").containsExactly("ActionStaged");
            assertThat(outbox(owner, copied)).as("a copy adds nothing").containsExactly("ActionStaged");
            assertThat(outbox(owner, waiting)).containsExactly("ActionStaged");
            assertThat(outbox(owner, tainted)).containsExactly("ActionStaged");
            assertThat(outbox(owner, applied)).containsExactly("ActionStaged", "ActionExecuted");
            assertThat(outbox(owner, secondRename)).containsExactly("ActionStaged", "ActionExecuted");
            assertThat(Db.text(owner, "SELECT actor || ' ' || channel FROM action_history WHERE action_id = ?"
                    + " AND to_status = 'proposed'", waiting.actionId)).isEqualTo("alice agent");
            // Stored after the first rename was applied on arrival: the tier rules' actor is not its.
            assertThat(Db.text(owner, "SELECT actor || ' ' || channel FROM action_history WHERE action_id = ?"
                    + " AND to_status = 'proposed'", secondRename.actionId)).isEqualTo("alice agent");
        }
    }

    private ProposalMother rename(String name) {
        var params = dev.countersign.contracts.json.Json.mapper().createObjectNode()
                .put("walletId", tenant.wallet().toString()).put("name", name);
        return new ProposalMother(tenant, ShippedKinds.RENAME_WALLET, params);
    }

    /** The types of the outbox's events about {@code proposal}'s action, oldest first. */
    private static List<String> outbox(Connection owner, ProposalMother proposal) throws Exception {
        List<String> types = new ArrayList<>();
        try (var query = owner.prepareStatement("SELECT payload::jsonb ->> 'type' FROM outbox WHERE message_key = ?"
                + " ORDER BY id")) {
            query.setString(1, proposal.actionId.toString());
            try (var rows = query.executeQuery()) {
                while (rows.next()) {
                    types.add(rows.getString(1));
                }
            }
        }
        return types;
    }

    /**
     * Sends as many blockers as there are staging transactions, each waiting on this test's uncommitted claim of its
     * event id (rolled back by the caller), and waits until each waits.
     */
    private void occupyEveryTransaction(Connection owner, List<Integer> lanesTaken) throws Exception {
        owner.setAutoCommit(false);
        int waitingBefore = Db.count("SELECT count(*) FROM pg_locks WHERE NOT granted");
        for (int i = 0; i < transactions; i++) {
            var blocker = distinctLane(lanesTaken, "1.00");
            try (var claim = owner.prepareStatement(
                    "INSERT INTO processed_events (consumer, event_id) VALUES ('executor.proposals', ?)")) {
                claim.setObject(1, UUID.fromString(blocker.event.get("eventId").asText()));
                claim.executeUpdate();
            }
            blocker.send(kafka);
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> Db.count(
                "SELECT count(*) FROM pg_locks WHERE NOT granted") >= waitingBefore + transactions);
    }

    /** A proposal of the test tenant in a lane no other proposal of this test takes. */
    private ProposalMother distinctLane(List<Integer> lanesTaken, String amount) {
        return distinctLane(lanesTaken, () -> new ProposalMother(tenant, amount));
    }

    /** A proposal made by {@code make}, made again until its lane is one no other proposal of this test takes. */
    private ProposalMother distinctLane(List<Integer> lanesTaken, Supplier<ProposalMother> make) {
        var proposal = make.get();
        while (lanesTaken.contains(KeyedLanes.laneOf(proposal.actionId.toString(), proposalLanes))) {
            proposal = make.get();
        }
        lanesTaken.add(KeyedLanes.laneOf(proposal.actionId.toString(), proposalLanes));
        return proposal;
    }

    private static void awaitWaiting(int proposals) {
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(metric("countersign_staging_waiting"))
                .isEqualTo(proposals));
    }

    private static double metric(String name) {
        return MetricsText.value(given().get(Management.url("/metrics")).then().statusCode(200).extract().asString(),
                name);
    }
}
