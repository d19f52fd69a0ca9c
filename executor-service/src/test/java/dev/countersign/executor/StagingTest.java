package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ContractFixtures;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.TopicRecords;
import dev.countersign.executor.messaging.KeyedLanes;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;

@QuarkusTest
@ExecutorTestResources
class StagingTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    /**
     * A missing owner would read as the requester's own (Relation.of): a proposal whose row has no owner in this tenant
     * (an expense into a wallet that is not there, or is another tenant's) is refused at staging, nothing stored.
     */
    @Test
    void aProposalWhoseRowHasNoOwnerInTheTenantIsRefused() throws Exception {
        UUID elsewhere;
        try (var owner = Db.owner()) {
            elsewhere = DemoData.createWallet(owner, "t-" + UUID.randomUUID(), "alice", "Elsewhere", "EUR");
        }
        for (UUID wallet : List.of(UUID.randomUUID(), elsewhere)) {
            var proposal = new ProposalMother(tenant.id(), wallet, "12.50");
            proposal.send(kafka);

            assertThat(kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(proposal.actionId.toString())))
                    .singleElement().asString().contains("ActionRejected").contains("target_not_found");
            assertThat(Db.status(proposal.actionId)).isNull();
        }
    }

    private List<JsonNode> outcomesOf(UUID actionId, int atLeast) {
        return kafka.read(Topics.ACTIONS_OUTCOMES, value -> value.contains(actionId.toString()),
                found -> found.size() >= atLeast, Duration.ofSeconds(15)).stream().map(StagingTest::tree).toList();
    }

    private static JsonNode tree(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aPersonsProposalIsStoredWithATokenTheExecutorMintedNotTheOneItsProposerSent() throws Exception {
        var withHash = new ProposalMother(tenant, "12.50");
        var withoutHash = new ProposalMother(tenant, "13.50");
        withoutHash.event.remove("tokenHash");

        withHash.send(kafka);
        withoutHash.send(kafka);

        Db.awaitStatus(withHash.actionId, "proposed");
        Db.awaitStatus(withoutHash.actionId, "proposed");
        String stored = Db.text("SELECT token_hash FROM actions WHERE id = ?", withHash.actionId);
        assertThat(stored).matches("[0-9a-f]{64}").isNotEqualTo(withHash.event.get("tokenHash").asText());
        assertThat(Db.text("SELECT token_hash FROM actions WHERE id = ?", withoutHash.actionId))
                .matches("[0-9a-f]{64}").isNotEqualTo(stored);
        assertThat(Db.count("SELECT count(*) FROM actions WHERE id = ? AND (params::text LIKE ? OR summary LIKE ?)",
                withHash.actionId, "%" + withHash.token + "%", "%" + withHash.token + "%")).isZero();
    }

    @Test
    void stagingPublishesActionStagedInTheGoldenShape() {
        var proposal = new ProposalMother(tenant, "12.50");

        proposal.send(kafka);

        JsonNode staged = outcomesOf(proposal.actionId, 1).get(0);
        assertThat(staged.get("type").asText()).isEqualTo("ActionStaged");
        assertThat(ContractFixtures.memberNames(staged)).containsExactlyInAnyOrderElementsOf(
                ContractFixtures.memberNames(ContractFixtures.ACTION_STAGED));
        assertThat(staged.get("tier").asText()).isEqualTo("low");
        assertThat(staged.get("paramsHash").asText()).isEqualTo(proposal.event.get("paramsHash").asText());
    }

    @Test
    void aRedeliveredProposalIsStagedOnceAndAnnouncedOnce() throws Exception {
        var proposal = new ProposalMother(tenant, "12.50");

        proposal.send(kafka);
        proposal.send(kafka);
        proposal.send(kafka);

        Db.awaitStatus(proposal.actionId, "proposed");
        var outcomes = kafka.readFor(Topics.ACTIONS_OUTCOMES, value -> value.contains(proposal.actionId.toString()),
                Duration.ofSeconds(3));
        assertThat(outcomes).hasSize(1);
        assertThat(Db.count("SELECT count(*) FROM actions WHERE id = ?", proposal.actionId)).isEqualTo(1);
    }

    @Test
    void invalidParametersAreRejectedAndNothingIsStored() throws Exception {
        var proposal = new ProposalMother(tenant, "12.50");
        proposal.params().put("amount", "-5.00");
        proposal.rehash();

        proposal.send(kafka);

        JsonNode rejected = outcomesOf(proposal.actionId, 1).get(0);
        assertThat(rejected.get("type").asText()).isEqualTo("ActionRejected");
        assertThat(ContractFixtures.memberNames(rejected)).containsExactlyInAnyOrderElementsOf(
                ContractFixtures.memberNames(ContractFixtures.ACTION_REJECTED));
        assertThat(rejected.get("code").asText()).isEqualTo("validation_failed");
        assertThat(rejected.get("reason").asText()).contains("amount");
        assertThat(Db.status(proposal.actionId)).isNull();
    }

    @Test
    void aDescriptionWithABidiOverrideIsRejectedAndNothingIsStaged() throws Exception {
        // "Refund for lunch" displays with its tail reversed: what a person would read is not what was sent.
        var proposal = new ProposalMother(tenant, "12.50");
        proposal.params().put("description", "Refund for \u202Ehcnul");
        proposal.rehash();

        proposal.send(kafka);

        JsonNode rejected = outcomesOf(proposal.actionId, 1).get(0);
        assertThat(rejected.get("type").asText()).isEqualTo("ActionRejected");
        assertThat(rejected.get("code").asText()).isEqualTo("validation_failed");
        assertThat(rejected.get("reason").asText()).contains("description").contains("U+202E");
        assertThat(Db.status(proposal.actionId)).isNull();
        assertThat(Db.count("SELECT count(*) FROM actions WHERE tenant_id = ?", tenant.id())).isZero();
    }

    @Test
    void aHashThatDoesNotMatchTheParametersIsRejected() throws Exception {
        var proposal = new ProposalMother(tenant, "12.50");
        proposal.params().put("amount", "1250.00");

        proposal.send(kafka);

        JsonNode rejected = outcomesOf(proposal.actionId, 1).get(0);
        assertThat(rejected.get("code").asText()).isEqualTo("params_mismatch");
        assertThat(Db.status(proposal.actionId)).isNull();
    }

    @Test
    void aProposalCannotTakeAnotherProposalsId() throws Exception {
        var first = new ProposalMother(tenant, "12.50");
        first.stage(kafka);

        var impostor = new ProposalMother(tenant, "999.00");
        impostor.event.put("actionId", first.actionId.toString());
        impostor.send(kafka);

        var outcomes = outcomesOf(first.actionId, 2);
        assertThat(outcomes.get(1).get("code").asText()).isEqualTo("duplicate_action");
        assertThat(Db.text("SELECT params->>'amount' FROM actions WHERE id = ?", first.actionId))
                .isEqualTo("12.50");
    }

    /**
     * The agent re-sends an unacknowledged proposal, and the model may repeat one (its id derives from what it
     * proposes): a second copy under a new event id is ignored, neither rejected nor staged or applied again.
     */
    @Test
    void aSecondCopyOfAnAppliedProposalWritesNothingAndPublishesNothing() throws Exception {
        TenantPolicies.set(tenant.id(), "agent-writes", "{\"mode\": \"enabled\"}");
        var first = new ProposalMother(tenant, "4.20");
        first.send(kafka);
        Db.awaitStatus(first.actionId, "executed");

        // Switched off since: the copy must still be recognised before any rule could reject it under the live id.
        given().header("Authorization", "Bearer " + tenant.executorBearer("admin")).contentType("application/json")
                .body("{\"mode\": \"disabled\"}").put("/api/actions/policy/agent-writes").then().statusCode(200);
        first.event.put("eventId", UUID.randomUUID().toString());
        first.send(kafka);

        await().atMost(Duration.ofSeconds(15)).until(() -> processed(first.event.get("eventId").asText()));
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                .until(() -> outboxEvents(first.actionId) == 2 && first.ledgerRows() == 1);
        assertThat(outcomesOf(first.actionId, 2)).extracting(outcome -> outcome.get("type").asText())
                .containsExactly("ActionStaged", "ActionExecuted");
    }

    /** The proposals consumer committed its work for this event id (its effect, or that it had none). */
    private static boolean processed(String eventId) throws java.sql.SQLException {
        return Db.count("SELECT count(*) FROM processed_events WHERE consumer = 'executor.proposals' AND event_id = ?",
                UUID.fromString(eventId)) == 1;
    }

    /** Outcome events written for the action (the relay publishes exactly these). */
    private static int outboxEvents(UUID actionId) throws java.sql.SQLException {
        return Db.count("SELECT count(*) FROM outbox WHERE message_key = ?", actionId.toString());
    }

    @Test
    void aSecondCopyOfAWaitingProposalIsIgnoredAndTheActionStillWaits() throws Exception {
        var first = new ProposalMother(tenant, "12.50");
        first.stage(kafka);

        first.event.put("eventId", UUID.randomUUID().toString());
        first.send(kafka);

        await().atMost(Duration.ofSeconds(15)).until(() -> processed(first.event.get("eventId").asText()));
        assertThat(outboxEvents(first.actionId)).isEqualTo(1);
        assertThat(Db.status(first.actionId)).isEqualTo("proposed");
    }

    @Test
    void aProposalUnderAnotherTenantsActionIdIsRejectedAndTheOtherActionIsUntouched() throws Exception {
        var theirs = new ProposalMother(TestTenant.withCheckingWallet(), "12.50");
        theirs.stage(kafka);
        var mine = new ProposalMother(tenant, "12.50");
        mine.event.put("actionId", theirs.actionId.toString());

        mine.send(kafka);

        var outcomes = outcomesOf(theirs.actionId, 2);
        assertThat(outcomes.get(1).get("code").asText()).isEqualTo("duplicate_action");
        assertThat(outcomes.get(1).get("tenantId").asText()).isEqualTo(tenant.id());
        assertThat(Db.text("SELECT tenant_id FROM actions WHERE id = ?", theirs.actionId))
                .isEqualTo(theirs.event.get("tenantId").asText());
    }

    @Test
    void aProposalThePostgresCannotStoreIsRejectedAndDoesNotBlockTheNextOne() throws Exception {
        var poisoned = new ProposalMother(tenant, "1.00");
        poisoned.by("alice\u0000");
        var next = new ProposalMother(tenant, "2.00");

        poisoned.send(kafka);
        next.send(kafka);

        assertThat(outcomesOf(poisoned.actionId, 1).get(0).get("code").asText()).isEqualTo("validation_failed");
        Db.awaitStatus(next.actionId, "proposed");
        assertThat(Db.status(poisoned.actionId)).isNull();
    }

    /**
     * Proposals of different actions are staged side by side (KeyedLanes): one whose staging waits on a lock does not
     * hold up the proposal behind it. The lock: this test's uncommitted claim of the first proposal's event id in
     * processed_events, which the staging transaction's own claim waits for. Without the lanes the consumer takes one
     * record at a time and the second waits too.
     */
    @Test
    void aProposalWaitingOnALockDoesNotHoldUpTheNextOne() throws Exception {
        assumeTrue(proposalLanes > 1, "one lane takes one record at a time");
        var blocked = new ProposalMother(tenant, "1.00");
        var next = new ProposalMother(tenant, "2.00");
        while (lane(next) == lane(blocked)) {
            next = new ProposalMother(tenant, "2.00");
        }
        try (var owner = Db.owner()) {
            owner.setAutoCommit(false);
            try (var claim = owner.prepareStatement(
                    "INSERT INTO processed_events (consumer, event_id) VALUES ('executor.proposals', ?)")) {
                claim.setObject(1, UUID.fromString(blocked.event.get("eventId").asText()));
                claim.executeUpdate();
            }
            blocked.send(kafka);
            Db.awaitALockWait();
            next.send(kafka);

            Db.awaitStatus(next.actionId, "proposed");
            assertThat(Db.status(blocked.actionId)).isNull();
            owner.rollback();
        }
        Db.awaitStatus(blocked.actionId, "proposed");
    }

    /**
     * One action's proposals keep their order whatever their record keys (the lane comes from the payload's action id):
     * a copy sent under another lane's key while the first waits on a lock waits behind it, rather than being staged
     * first as the action.
     */
    @Test
    void aCopyOfAProposalKeyedOtherwiseWaitsBehindTheFirst() throws Exception {
        assumeTrue(proposalLanes > 1, "one lane takes one record at a time");
        var first = new ProposalMother(tenant, "1.00");
        String copy = UUID.randomUUID().toString();
        String otherKey = UUID.randomUUID().toString();
        while (KeyedLanes.laneOf(otherKey, proposalLanes) == lane(first)) {
            otherKey = UUID.randomUUID().toString();
        }
        try (var owner = Db.owner()) {
            owner.setAutoCommit(false);
            try (var claim = owner.prepareStatement(
                    "INSERT INTO processed_events (consumer, event_id) VALUES ('executor.proposals', ?)")) {
                claim.setObject(1, UUID.fromString(first.event.get("eventId").asText()));
                claim.executeUpdate();
            }
            first.send(kafka);
            Db.awaitALockWait();
            first.event.put("eventId", copy);
            first.sendKeyed(kafka, otherKey);

            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
                    .until(() -> Db.status(first.actionId) == null);
            owner.rollback();
        }
        Db.awaitStatus(first.actionId, "proposed");
        // The copy arrived and was processed, after the first.
        await().atMost(Duration.ofSeconds(15)).until(() -> processed(copy));
    }

    @ConfigProperty(name = "countersign.proposals.lanes")
    int proposalLanes;

    /** The lane of an action's records (their key is the action id). */
    private int lane(ProposalMother proposal) {
        return KeyedLanes.laneOf(proposal.actionId.toString(), proposalLanes);
    }

    @Test
    void anUnreadableProposalGoesToTheDeadLetterTopic() {
        String marker = "poison-" + UUID.randomUUID();

        kafka.send(Topics.ACTIONS_PROPOSED, marker, "{\"not\": \"a proposal\", \"marker\": \"" + marker + "\"}");

        var parked = kafka.awaitAny(Topics.ACTIONS_PROPOSED_DEAD_LETTER, value -> value.contains(marker));
        assertThat(parked).hasSize(1);
    }

    /**
     * The JSON literal {@code null} read as a null proposal, which then threw before the consumer returned a Uni: it is
     * parked through the consumer's own refusal (its reason says it is unreadable, not a NullPointerException) and the
     * proposal behind it on the same partition is still staged.
     */
    @Test
    void aJsonNullProposalIsParkedAsUnreadableAndTheNextOneIsStaged() throws Exception {
        var next = new ProposalMother(tenant, "2.00");
        String key = next.actionId.toString();

        kafka.send(Topics.ACTIONS_PROPOSED, key, "null");
        next.send(kafka);

        Db.awaitStatus(next.actionId, "proposed");
        var parked = kafka.awaitKey(Topics.ACTIONS_PROPOSED_DEAD_LETTER, key, Duration.ofSeconds(15));
        assertThat(parked).hasSize(1);
        assertThat(parked.get(0).value()).isEqualTo("null");
        assertThat(KafkaCompanion.getHeader(parked.get(0).headers(), "dead-letter-reason")).contains("unreadable")
                .contains("JSON null");
    }

    @Test
    void aProposalMayShortenItsWindowButNeverExtendIt() throws Exception {
        var shorter = new ProposalMother(tenant, "1.00");
        shorter.event.put("requestedTtlSeconds", 60);
        var longer = new ProposalMother(tenant, "1.00");
        longer.event.put("requestedTtlSeconds", 86_400);

        shorter.send(kafka);
        longer.send(kafka);

        await().atMost(Duration.ofSeconds(15)).until(() -> Db.status(longer.actionId) != null
                && Db.status(shorter.actionId) != null);
        assertThat(Db.count("SELECT count(*) FROM actions WHERE id = ? AND expires_at - proposed_at"
                + " = interval '60 seconds'", shorter.actionId)).isEqualTo(1);
        assertThat(Db.count("SELECT count(*) FROM actions WHERE id = ? AND expires_at - proposed_at"
                + " = interval '15 minutes'", longer.actionId)).isEqualTo(1);
    }
}
