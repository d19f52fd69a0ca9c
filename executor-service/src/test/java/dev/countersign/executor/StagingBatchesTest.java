package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.CapturedLogs;
import dev.countersign.devsupport.testing.KafkaTestClient;
import dev.countersign.executor.messaging.KeyedLanes;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Group commit for staging ({@code StagingBatches}): proposals that wait while every staging transaction is busy are
 * staged together, one tenant per transaction, each in its own trace; a batch that fails is staged again proposal by
 * proposal. Which transaction wrote a row shows in its {@code xmin}. The busy transactions: proposals whose event ids
 * this test has claimed in processed_events without committing, so their staging waits on the claim.
 */
@QuarkusTest
@ExecutorTestResources
class StagingBatchesTest {

    private final KafkaTestClient kafka = KafkaTestClient.fromTestProperties();
    private final CapturedLogs logs = new CapturedLogs();
    private final Set<Integer> lanesTaken = new HashSet<>();

    @Inject
    MeterRegistry registry;

    @ConfigProperty(name = "countersign.proposals.transactions")
    int transactions;

    @ConfigProperty(name = "countersign.proposals.lanes")
    int lanes;

    @BeforeEach
    void captureLogs() {
        logs.install();
    }

    @AfterEach
    void stopCapturing() {
        logs.uninstall();
    }

    @Test
    void proposalsWaitingForATransactionAreStagedTogetherOneTenantPerTransactionEachInItsOwnTrace() throws Exception {
        var mine = TestTenant.withCheckingWallet();
        var theirs = TestTenant.withCheckingWallet();
        List<ProposalMother> myProposals = new ArrayList<>();
        List<ProposalMother> theirProposals = new ArrayList<>();
        Map<UUID, String> traces = new java.util.HashMap<>();

        try (var owner = blockEveryTransaction()) {
            for (int i = 0; i < 3; i++) {
                for (var tenant : List.of(mine, theirs)) {
                    var proposal = inAFreeLane(() -> new ProposalMother(tenant, "1.00"));
                    (tenant == mine ? myProposals : theirProposals).add(proposal);
                    String trace = randomHex(32);
                    traces.put(proposal.actionId, trace);
                    proposal.sendTraced(kafka, trace);
                }
            }
            awaitWaiting(6);
            owner.rollback();
        }

        for (var proposal : concat(myProposals, theirProposals)) {
            Db.awaitStatus(proposal.actionId, "proposed");
            assertThat(Db.text("SELECT trace_parent FROM actions WHERE id = ?", proposal.actionId))
                    .as("each action keeps its own proposal's trace").contains(traces.get(proposal.actionId));
        }
        Set<String> mine1 = writers(myProposals);
        Set<String> theirs1 = writers(theirProposals);
        assertThat(mine1).as("one transaction staged this tenant's waiting proposals").hasSize(1);
        assertThat(theirs1).as("and another the other tenant's").hasSize(1).doesNotContainAnyElementsOf(mine1);
    }

    @Test
    void aBatchWithAProposalPostgresCannotStoreIsStagedAgainProposalByProposal() throws Exception {
        var tenant = TestTenant.withCheckingWallet();
        var before = inAFreeLane(() -> new ProposalMother(tenant, "1.00"));
        var poisoned = inAFreeLane(() -> new ProposalMother(tenant, "2.00").by("alice\u0000"));
        var after = inAFreeLane(() -> new ProposalMother(tenant, "3.00"));

        try (var owner = blockEveryTransaction()) {
            before.send(kafka);
            poisoned.send(kafka);
            after.send(kafka);
            awaitWaiting(3);
            owner.rollback();
        }

        Db.awaitStatus(before.actionId, "proposed");
        Db.awaitStatus(after.actionId, "proposed");
        var rejected = kafka.read(Topics.ACTIONS_OUTCOMES, value -> value.contains(poisoned.actionId.toString()),
                found -> !found.isEmpty(), Duration.ofSeconds(15));
        assertThat(Json.mapper().readTree(rejected.get(0)).get("code").asText()).isEqualTo("validation_failed");
        assertThat(Db.status(poisoned.actionId)).isNull();
        assertThat(writers(List.of(before, after))).as("staged alone after the batch failed").hasSize(2);
    }

    @Test
    void eachProposalOfABatchLogsInItsOwnTrace() throws Exception {
        var tenant = TestTenant.withCheckingWallet();
        List<ProposalMother> unknownKinds = new ArrayList<>();
        Map<UUID, String> traces = new java.util.HashMap<>();

        try (var owner = blockEveryTransaction()) {
            for (int i = 0; i < 3; i++) {
                var proposal = inAFreeLane(() -> new ProposalMother(tenant, "no_such_kind",
                        Json.mapper().createObjectNode().put("note", "x")));
                unknownKinds.add(proposal);
                String trace = randomHex(32);
                traces.put(proposal.actionId, trace);
                proposal.sendTraced(kafka, trace);
            }
            awaitWaiting(3);
            owner.rollback();
        }

        for (var proposal : unknownKinds) {
            String id = proposal.actionId.toString();
            await().atMost(Duration.ofSeconds(15)).until(() -> rejectionLogged(id) != null);
            assertThat(rejectionLogged(id).getMdc("traceId")).as("the rejection of " + id)
                    .isEqualTo(traces.get(proposal.actionId));
        }
    }

    @Test
    void proposalsAppliedOnArrivalInOneBatchAreEachExecutedAndSpendTheBudgetOnce() throws Exception {
        var tenant = TestTenant.withCheckingWallet();
        given().header("Authorization", "Bearer " + tenant.executorBearer("admin")).contentType("application/json")
                .body(Json.write(Map.of("mode", "enabled"))).put("/api/actions/policy/agent-writes").then()
                .statusCode(200);
        List<ProposalMother> expenses = new ArrayList<>();

        try (var owner = blockEveryTransaction()) {
            for (int i = 0; i < 3; i++) {
                var expense = inAFreeLane(() -> new ProposalMother(tenant, "1.00"));
                expenses.add(expense);
                expense.send(kafka);
            }
            awaitWaiting(3);
            owner.rollback();
        }

        for (var expense : expenses) {
            Db.awaitStatus(expense.actionId, "executed");
        }
        assertThat(Db.count("SELECT count(*) FROM auto_apply_spends WHERE tenant_id = ?", tenant.id())).isEqualTo(3);
        assertThat(Db.count("SELECT count(*) FROM transactions WHERE tenant_id = ?", tenant.id())).isEqualTo(3);
    }

    /**
     * Takes every staging transaction of the service: one proposal each, of a tenant of their own, whose event id the
     * returned connection has claimed without committing. Rolling it back lets them finish.
     */
    private Connection blockEveryTransaction() throws Exception {
        var blockers = TestTenant.withCheckingWallet();
        Connection owner = Db.owner();
        owner.setAutoCommit(false);
        List<ProposalMother> blocked = new ArrayList<>();
        for (int i = 0; i < transactions; i++) {
            var proposal = inAFreeLane(() -> new ProposalMother(blockers, "9.00"));
            try (var claim = owner.prepareStatement(
                    "INSERT INTO processed_events (consumer, event_id) VALUES ('executor.proposals', ?)")) {
                claim.setObject(1, UUID.fromString(proposal.event.get("eventId").asText()));
                claim.executeUpdate();
            }
            blocked.add(proposal);
        }
        blocked.forEach(proposal -> proposal.send(kafka));
        await().atMost(Duration.ofSeconds(15)).until(
                () -> Db.count("SELECT count(*) FROM pg_locks WHERE NOT granted") >= transactions);
        return owner;
    }

    /** A proposal whose action id takes a lane no other proposal of this test took, so none waits behind another. */
    private ProposalMother inAFreeLane(java.util.function.Supplier<ProposalMother> next) {
        while (true) {
            ProposalMother proposal = next.get();
            if (lanesTaken.add(KeyedLanes.laneOf(proposal.actionId.toString(), lanes))) {
                return proposal;
            }
        }
    }

    private void awaitWaiting(int count) {
        await().atMost(Duration.ofSeconds(15))
                .until(() -> registry.get("countersign.proposals.waiting").gauge().value() >= count);
    }

    /** The transactions that wrote these actions' rows (their xmin). */
    private static Set<String> writers(List<ProposalMother> proposals) throws Exception {
        Set<String> writers = new HashSet<>();
        for (var proposal : proposals) {
            writers.add(Db.text("SELECT xmin::text FROM actions WHERE id = ?", proposal.actionId));
        }
        return writers;
    }

    private ExtLogRecord rejectionLogged(String actionId) {
        return logs.first(record -> CapturedLogs.rendered(record).contains("Rejected proposal " + actionId));
    }

    private static List<ProposalMother> concat(List<ProposalMother> first, List<ProposalMother> second) {
        List<ProposalMother> both = new ArrayList<>(first);
        both.addAll(second);
        return both;
    }

    private static String randomHex(int length) {
        StringBuilder hex = new StringBuilder();
        while (hex.length() < length) {
            hex.append(Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE));
        }
        return hex.substring(0, length);
    }
}
