package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.KafkaHeaders;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.expiry.ExpirySweeper;
import dev.countersign.executor.messaging.KeyedLanes;
import io.quarkus.reactive.datasource.ReactiveDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;

/** Confirm and cancel relayed by integrations on countersign.actions.decisions, in the golden wire form. */
@QuarkusTest
@ExecutorTestResources
class DecisionsTopicTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    private ProposalMother staged() throws Exception {
        return ProposalMother.staged(kafka, tenant, "12.50");
    }

    private void send(ObjectNode event) {
        kafka.send(Topics.ACTIONS_DECISIONS, event.get("actionId").asText(), Json.write(event));
    }

    /** The decision consumer recorded the event: its effect (or its refusal) is committed. */
    private static void awaitProcessed(ObjectNode event) {
        await().atMost(Duration.ofSeconds(15)).until(() -> Db.count(
                "SELECT count(*) FROM processed_events WHERE consumer = 'executor.decisions' AND event_id = ?",
                UUID.fromString(event.get("eventId").asText())) == 1);
    }

    @Test
    void theTokenWhoseHashTheProposerSentDecidesNothingOnlyTheOneTheExecutorIssues() throws Exception {
        var proposal = staged();
        // The agent (or whoever made the proposal) knows this token: it must not be a countersignature.
        ObjectNode withProposersToken = proposal.decided("confirm", proposal.token);

        send(withProposersToken);
        awaitProcessed(withProposersToken);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> "proposed".equals(Db.status(proposal.actionId)));

        String first = proposal.tokenFromExecutor();
        String second = given().header("Authorization", "Bearer " + tenant.executorBearer("token-desk"))
                .post("/api/actions/{id}/reissue-token", proposal.actionId)
                .then().statusCode(200).extract().jsonPath().getString("confirmToken");
        ObjectNode withReplacedToken = proposal.decided("confirm", first);
        send(withReplacedToken);
        awaitProcessed(withReplacedToken);
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");

        send(proposal.decided("confirm", second));
        Db.awaitStatus(proposal.actionId, "executed");
        assertThat(proposal.ledgerRows()).isEqualTo(1);
        given().header("Authorization", "Bearer " + tenant.executorBearer("alice"))
                .get("/api/actions/{id}/history", proposal.actionId)
                .then().body("reason[1]", equalTo("confirm token reissued"))
                .body("reason[2]", equalTo("confirm token reissued"));
    }

    /**
     * Decisions on different actions are processed side by side (KeyedLanes): one whose action is locked does not hold
     * up the decision behind it on another action. Without the lanes the consumer takes one record at a time and the
     * second waits for the lock too.
     */
    @Test
    void aDecisionWaitingForItsActionDoesNotHoldUpADecisionOnAnotherAction() throws Exception {
        assumeTrue(decisionLanes > 1, "one lane takes one record at a time");
        var blocked = staged();
        var other = staged();
        while (lane(other) == lane(blocked)) {
            other = staged();
        }
        // The tokens first: asking for one locks the action too.
        ObjectNode blockedConfirm = blocked.decided("confirm", blocked.tokenFromExecutor());
        ObjectNode otherConfirm = other.decided("confirm", other.tokenFromExecutor());
        try (var owner = Db.owner()) {
            owner.setAutoCommit(false);
            try (var lock = owner.prepareStatement("SELECT id FROM actions WHERE id = ? FOR UPDATE")) {
                lock.setObject(1, blocked.actionId);
                lock.executeQuery().close();
            }
            send(blockedConfirm);
            Db.awaitALockWait();
            send(otherConfirm);

            Db.awaitStatus(other.actionId, "executed");
            assertThat(Db.status(blocked.actionId)).isEqualTo("proposed");
            owner.rollback();
        }
        Db.awaitStatus(blocked.actionId, "executed");
    }

    /**
     * People's confirms over HTTP run on a pool of their own (TenantTransactions): with every connection of that pool
     * taken, an HTTP confirm waits for one, and a decision by event still runs on the main pool meanwhile. On one
     * shared pool the HTTP confirm would run at once (and under a burst of HTTP confirms, the event's decision would
     * queue behind them for a connection).
     */
    @Test
    void withEveryHttpConnectionTakenAnHttpConfirmWaitsAndADecisionByEventStillRuns() throws Exception {
        var overHttp = staged();
        var byEvent = staged();
        ObjectNode eventConfirm = byEvent.decided("confirm", byEvent.tokenFromExecutor());
        String bearer = tenant.executorBearer("alice");
        List<SqlConnection> taken = new ArrayList<>();
        CompletableFuture<Integer> httpConfirm;
        try {
            for (int i = 0; i < httpPoolSize; i++) {
                taken.add(httpPool.getConnection().await().atMost(Duration.ofSeconds(10)));
            }
            httpConfirm = CompletableFuture.supplyAsync(() -> overHttp.decide("confirm", bearer).statusCode());
            send(eventConfirm);

            Db.awaitStatus(byEvent.actionId, "executed");
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                    .until(() -> !httpConfirm.isDone() && "proposed".equals(Db.status(overHttp.actionId)));
        } finally {
            taken.forEach(connection -> connection.close().await().atMost(Duration.ofSeconds(10)));
        }
        assertThat(httpConfirm.get(30, TimeUnit.SECONDS)).isEqualTo(200);
        assertThat(Db.status(overHttp.actionId)).isEqualTo("executed");
    }

    /**
     * A confirm that gets the action's row only after its window closed finds it closed (the lock statement reads the
     * window with the decision's own transaction clock), expires it and writes nothing: the write is not sent with the
     * compare-and-swap (sent anyway, the swap would miss after it and the decision fail). The sweep cannot expire the
     * action first ({@link Db#closeTheWindowWhile}): the expiry in the history is the decision's.
     */
    @Test
    void aConfirmThatGetsTheRowAfterItsWindowClosedExpiresItAndWritesNothing() throws Exception {
        var proposal = staged();
        ObjectNode confirm = proposal.decided("confirm", proposal.tokenFromExecutor());
        Db.closeTheWindowWhile(proposal.actionId, () -> send(confirm));

        Db.awaitStatus(proposal.actionId, "expired");
        assertThat(Db.expiryChannel(proposal.actionId)).as("expired by the decision, not the sweep")
                .isNotEqualTo(ExpirySweeper.CHANNEL);
        assertThat(proposal.ledgerRows()).isZero();
        awaitProcessed(confirm);
    }

    /**
     * One action's decisions keep their order even when an integration keys its records otherwise: the lane comes from
     * the payload's action id. While the confirm waits for the locked action, the cancel sent under another lane's key
     * waits behind it in its lane, not on the action's lock beside it.
     */
    @Test
    void decisionsOnOneActionShareALaneWhateverTheirRecordKeys() throws Exception {
        assumeTrue(decisionLanes > 1, "one lane takes one record at a time");
        var proposal = staged();
        String token = proposal.tokenFromExecutor();
        ObjectNode cancel = proposal.decided("cancel", token);
        String otherKey = UUID.randomUUID().toString();
        while (KeyedLanes.laneOf(otherKey, decisionLanes) == lane(proposal)) {
            otherKey = UUID.randomUUID().toString();
        }
        try (var owner = Db.owner()) {
            owner.setAutoCommit(false);
            try (var lock = owner.prepareStatement("SELECT id FROM actions WHERE id = ? FOR UPDATE")) {
                lock.setObject(1, proposal.actionId);
                lock.executeQuery().close();
            }
            send(proposal.decided("confirm", token));
            Db.awaitALockWait();
            kafka.send(Topics.ACTIONS_DECISIONS, otherKey, Json.write(cancel));

            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
                    .until(() -> Db.count("SELECT count(*) FROM pg_locks WHERE NOT granted") == 1);
            owner.rollback();
        }
        // The cancel was processed after the confirm (so it was there, waiting): the action stays executed.
        awaitProcessed(cancel);
        assertThat(Db.status(proposal.actionId)).isEqualTo("executed");
    }

    @ConfigProperty(name = "countersign.decisions.lanes")
    int decisionLanes;

    @Inject
    @ReactiveDataSource(TenantTransactions.HTTP_DATASOURCE)
    Pool httpPool;

    @ConfigProperty(name = "quarkus.datasource.\"http\".reactive.max-size")
    int httpPoolSize;

    /** The lane of an action's records (their key is the action id). */
    private int lane(ProposalMother proposal) {
        return KeyedLanes.laneOf(proposal.actionId.toString(), decisionLanes);
    }

    @Test
    void aConfirmRelayedByAnIntegrationExecutesOnceEvenWhenRedelivered() throws Exception {
        var proposal = staged();
        ObjectNode confirm = proposal.decided("confirm", proposal.tokenFromExecutor());

        send(confirm);
        send(confirm);
        send(proposal.decided("confirm", proposal.tokenFromExecutor()));

        Db.awaitStatus(proposal.actionId, "executed");
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> proposal.ledgerRows() == 1);
        // The second "proposed" is the approver asking for the token (an HTTP call), then the relayed decision.
        given().header("Authorization", "Bearer " + tenant.executorBearer("alice"))
                .get("/api/actions/{id}/history", proposal.actionId)
                .then().statusCode(200)
                .body("to", contains("proposed", "proposed", "confirmed", "executed"))
                .body("channel", contains("agent", "http", "slack", "slack"));
    }

    /**
     * A confirm by event whose write the kind refuses (the wallet renamed since staging): the write, sent with its
     * COMMIT, rolls back with the event's claim, and the decision taken again records the failure once, the event
     * claimed once.
     */
    @Test
    void aConfirmByEventWhoseWriteIsRefusedRecordsTheFailureOnceAndClaimsTheEventOnce() throws Exception {
        var rename = new ProposalMother(tenant, ShippedKinds.RENAME_WALLET, Json.mapper().createObjectNode()
                .put("walletId", tenant.wallet().toString()).put("name", "Everyday")).stage(kafka);
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate(
                    "UPDATE wallets SET name = 'Renamed meanwhile' WHERE id = '" + tenant.wallet() + "'");
        }
        ObjectNode confirm = rename.decided("confirm", rename.tokenFromExecutor());

        send(confirm);
        Db.awaitStatus(rename.actionId, "failed");
        awaitProcessed(confirm);
        assertThat(Db.count("SELECT count(*) FROM action_history WHERE action_id = ? AND to_status = 'confirmed'",
                rename.actionId)).isOne();
        assertThat(Db.text("SELECT reason FROM action_history WHERE action_id = ? AND to_status = 'failed'",
                rename.actionId)).isEqualTo("target_changed");
        assertThat(Db.count("SELECT count(*) FROM outbox WHERE message_key = ? AND payload LIKE '%ActionFailed%'",
                rename.actionId.toString())).isOne();
        assertThat(Db.text("SELECT name FROM wallets WHERE id = ?", tenant.wallet())).isEqualTo("Renamed meanwhile");
    }

    @Test
    void aConfirmWithoutTheParamsHashIsParkedChangesNothingAndTheTokenStillWorks() throws Exception {
        var proposal = staged();
        String marker = "unpinned-" + UUID.randomUUID();

        send(proposal.decided("confirm", proposal.tokenFromExecutor()).putNull("paramsHash").put("marker", marker));
        send(proposal.decided("confirm", proposal.tokenFromExecutor()).put("paramsHash", "yes").put("marker", marker));

        var parked = kafka.read(Topics.ACTIONS_DECISIONS_DEAD_LETTER, value -> value.contains(marker),
                found -> found.size() >= 2, Duration.ofSeconds(20));
        assertThat(parked).hasSize(2)
                .allSatisfy(value -> assertThat(value).doesNotContain(proposal.tokenFromExecutor()));
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
        assertThat(proposal.ledgerRows()).isZero();

        send(proposal.decided("confirm", proposal.tokenFromExecutor()));
        Db.awaitStatus(proposal.actionId, "executed");
    }

    @Test
    void aConfirmNamingOtherParametersRunsNothing() throws Exception {
        var proposal = staged();
        ObjectNode other = proposal.decided("confirm", proposal.tokenFromExecutor()).put("paramsHash", "0".repeat(64));

        send(other);

        awaitProcessed(other);
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
        assertThat(proposal.ledgerRows()).isZero();
    }

    @Test
    void aCancelRelayedByAnIntegrationCancels() throws Exception {
        var proposal = staged();

        // A cancel may leave the parameters hash out.
        send(proposal.decided("cancel", proposal.tokenFromExecutor()).putNull("paramsHash"));

        Db.awaitStatus(proposal.actionId, "cancelled");
    }

    @Test
    void aWrongTokenChangesNothing() throws Exception {
        var proposal = staged();
        ObjectNode wrong = proposal.decided("confirm", "not-the-token");

        send(wrong);

        awaitProcessed(wrong);
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
    }

    @Test
    void aChatDecisionInTheTurnThatProposedIsRefusedButALaterTurnIsNot() throws Exception {
        var proposal = staged();
        String proposingTurn = proposal.event.get("turnId").asText();
        ObjectNode sameTurn = proposal.decided("confirm", proposal.tokenFromExecutor()).put("channel", "chat")
                .put("turnId", proposingTurn);

        send(sameTurn);
        awaitProcessed(sameTurn);
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");

        send(proposal.decided("confirm", proposal.tokenFromExecutor()).put("channel", "chat")
                .put("turnId", UUID.randomUUID().toString()));
        Db.awaitStatus(proposal.actionId, "executed");
    }

    @Test
    void aPoisonDecisionIsParkedAndDoesNotBlockTheNextOne() throws Exception {
        var proposal = staged();
        String marker = "poison-" + UUID.randomUUID();
        ObjectNode poison = proposal.decided("approve-please", proposal.tokenFromExecutor()).put("marker", marker);

        send(poison);
        send(proposal.decided("confirm", proposal.tokenFromExecutor()));

        Db.awaitStatus(proposal.actionId, "executed");
        var parked = kafka.awaitAny(Topics.ACTIONS_DECISIONS_DEAD_LETTER, value -> value.contains(marker));
        assertThat(parked).hasSize(1);
        assertThat(parked.get(0)).doesNotContain(proposal.tokenFromExecutor()).contains("<redacted>");
    }

    /**
     * The JSON literal {@code null} read as a null decision, whose checks then threw before any Uni existed; on this
     * channel (failure strategy {@code fail}) that stopped the consumer, and the confirm behind it never ran.
     */
    @Test
    void aJsonNullDecisionIsParkedWithItsReasonAndTheNextDecisionStillRuns() throws Exception {
        var proposal = staged();
        String key = proposal.actionId.toString();

        kafka.send(Topics.ACTIONS_DECISIONS, key, "null");
        send(proposal.decided("confirm", proposal.tokenFromExecutor()));

        Db.awaitStatus(proposal.actionId, "executed");
        var parked = kafka.awaitKey(Topics.ACTIONS_DECISIONS_DEAD_LETTER, key, Duration.ofSeconds(15));
        assertThat(parked).hasSize(1);
        assertThat(parked.get(0).value()).isEqualTo("null");
        assertThat(KafkaCompanion.getHeader(parked.get(0).headers(), "dead-letter-reason")).startsWith("unreadable:")
                .contains("JSON null");
    }

    /**
     * A tombstone (a record without a value) once made the parking itself throw, which stopped the decisions consumer:
     * it is parked with an empty value and its reason, and the confirm behind it on the same partition still runs.
     */
    @Test
    void aTombstoneDecisionIsParkedAndTheConsumerKeepsGoing() throws Exception {
        var proposal = staged();
        String key = proposal.actionId.toString();

        kafka.send(Topics.ACTIONS_DECISIONS, key, null);
        send(proposal.decided("confirm", proposal.tokenFromExecutor()));

        Db.awaitStatus(proposal.actionId, "executed");
        var parked = kafka.awaitKey(Topics.ACTIONS_DECISIONS_DEAD_LETTER, key, Duration.ofSeconds(15));
        assertThat(parked).hasSize(1);
        assertThat(parked.get(0).value()).isEmpty();
        assertThat(KafkaCompanion.getHeader(parked.get(0).headers(), "dead-letter-reason")).startsWith("unreadable:");
    }

    /**
     * An unreadable decision with a token of 20,000 characters once overflowed the stack while its token was redacted,
     * in the parking itself, which stopped the decisions consumer for every tenant (found in review): it is parked
     * without the token and the confirm behind it on the same partition still runs.
     */
    @Test
    void anUnreadableDecisionWithAHugeTokenIsParkedAndTheConsumerKeepsGoing() throws Exception {
        var proposal = staged();
        String key = proposal.actionId.toString();
        String token = "t".repeat(20_000);

        kafka.send(Topics.ACTIONS_DECISIONS, key, "{\"token\":\"" + token + "\"");
        send(proposal.decided("confirm", proposal.tokenFromExecutor()));

        Db.awaitStatus(proposal.actionId, "executed");
        var parked = kafka.awaitKey(Topics.ACTIONS_DECISIONS_DEAD_LETTER, key, Duration.ofSeconds(15));
        assertThat(parked).hasSize(1);
        assertThat(parked.get(0).value()).doesNotContain(token);
        assertThat(KafkaCompanion.getHeader(parked.get(0).headers(), "dead-letter-reason")).startsWith("unreadable:");
    }

    @Test
    void decisionsThatBreakTheRulesAreParkedWithoutTheirToken() throws Exception {
        var proposal = staged();
        String marker = "rules-" + UUID.randomUUID();

        send(proposal.decided("confirm", proposal.tokenFromExecutor()).put("channel", "chat").putNull("turnId")
                .put("marker", marker));
        send(proposal.decided("confirm", proposal.tokenFromExecutor()).put("channel", "http").put("marker", marker));
        send(proposal.decided("confirm", proposal.tokenFromExecutor()).put("userId", "mal\u0000lory").put("marker",
                marker));
        kafka.send(Topics.ACTIONS_DECISIONS, proposal.actionId.toString(),
                "{\"marker\":\"" + marker + "\",\"token\":\"" + proposal.tokenFromExecutor() + "\",");

        var parked = kafka.read(Topics.ACTIONS_DECISIONS_DEAD_LETTER, value -> value.contains(marker),
                found -> found.size() >= 4, Duration.ofSeconds(20));
        assertThat(parked).hasSize(4)
                .allSatisfy(value -> assertThat(value).doesNotContain(proposal.tokenFromExecutor()));
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
    }

    private void policy(int approvals, boolean needsOther) {
        TenantPolicies.set(tenant.id(), "approvals",
                "{\"highApprovals\":" + approvals + ",\"highNeedsOtherApprover\":" + needsOther + "}");
    }

    private void sendAsApprover(ObjectNode event, String approverToken) {
        kafka.send(Topics.ACTIONS_DECISIONS, event.get("actionId").asText(), Json.write(event),
                java.util.Map.of(KafkaHeaders.APPROVER, approverToken));
    }

    private static java.util.List<String> approvals(ProposalMother proposal) throws Exception {
        return java.util.Arrays
                .asList(Db.text("SELECT string_agg(approver, ',' ORDER BY approver) FROM action_approvals"
                        + " WHERE action_id = ?", proposal.actionId).split(","));
    }

    @Test
    void kForgedApproverIdsOnTheTopicCountAsOneApprover() throws Exception {
        policy(2, true);
        var high = ProposalMother.staged(kafka, tenant, "900.00");
        ObjectNode bob = high.decided("confirm", high.tokenFromExecutor()).put("userId", "bob");
        ObjectNode carol = high.decided("confirm", high.tokenFromExecutor()).put("userId", "carol");
        ObjectNode dave = high.decided("confirm", high.tokenFromExecutor()).put("userId", "dave");

        send(bob);
        send(carol);
        send(dave);

        awaitProcessed(bob);
        awaitProcessed(carol);
        awaitProcessed(dave);
        assertThat(Db.status(high.actionId)).isEqualTo("proposed");
        assertThat(high.ledgerRows()).isZero();
        assertThat(approvals(high)).containsExactly("integration:unverified");
    }

    @Test
    void approversVerifiedByTheirOwnExecutorTokenCountOneEach() throws Exception {
        policy(2, true);
        var high = ProposalMother.staged(kafka, tenant, "900.00");
        ObjectNode bob = high.decided("confirm", high.tokenFromExecutor()).put("userId", "bob");

        sendAsApprover(bob, tenant.executorBearer("bob"));
        awaitProcessed(bob);
        assertThat(Db.status(high.actionId)).isEqualTo("proposed");
        sendAsApprover(high.decided("confirm", high.tokenFromExecutor()).put("userId", "carol"),
                tenant.executorBearer("carol"));

        Db.awaitStatus(high.actionId, "executed");
        assertThat(approvals(high)).containsExactly("bob", "carol");
        assertThat(high.ledgerRows()).isEqualTo(1);
    }

    /**
     * An approver token is used up by the first decision that carries it: the same token relayed again, onto another
     * action or onto the same one in a new event, decides nothing and is parked (without the token). Before, one
     * approver token replayed onto any decision of the tenant while it lived.
     */
    @Test
    void anApproverTokenDecidesOnceAndAReplayOntoAnyDecisionIsParked() throws Exception {
        policy(2, true);
        var first = ProposalMother.staged(kafka, tenant, "900.00");
        var second = ProposalMother.staged(kafka, tenant, "950.00");
        String bobsToken = tenant.executorBearer("bob");
        String marker = "replay-" + UUID.randomUUID();

        ObjectNode used = first.decided("confirm", first.tokenFromExecutor()).put("userId", "bob");
        sendAsApprover(used, bobsToken);
        awaitProcessed(used);
        assertThat(approvals(first)).containsExactly("bob");
        assertThat(Db.text("SELECT action_id || ' ' || params_hash FROM approver_token_uses WHERE event_id = ?",
                UUID.fromString(used.get("eventId").asText()))).isEqualTo(first.actionId + " " + first.paramsHash());

        ObjectNode elsewhere = second.decided("confirm", second.tokenFromExecutor()).put("userId", "bob")
                .put("marker", marker);
        ObjectNode again = first.decided("confirm", first.tokenFromExecutor()).put("userId", "bob").put("marker",
                marker);
        sendAsApprover(elsewhere, bobsToken);
        sendAsApprover(again, bobsToken);

        var parked = kafka.read(Topics.ACTIONS_DECISIONS_DEAD_LETTER, value -> value.contains(marker),
                found -> found.size() >= 2, Duration.ofSeconds(20));
        assertThat(parked).hasSize(2).allSatisfy(value -> assertThat(value).doesNotContain(bobsToken));
        assertThat(kafka.awaitRecords(Topics.ACTIONS_DECISIONS_DEAD_LETTER, value -> value.contains(marker)))
                .allSatisfy(record -> assertThat(KafkaCompanion.getHeader(record.headers(), "dead-letter-reason"))
                        .isEqualTo("approver token refused: already_used"));
        assertThat(Db.count("SELECT count(*) FROM action_approvals WHERE action_id = ?", second.actionId)).isZero();
        assertThat(approvals(first)).containsExactly("bob");
        // A fresh token of bob's still approves the second action.
        ObjectNode fresh = second.decided("confirm", second.tokenFromExecutor()).put("userId", "bob");
        sendAsApprover(fresh, tenant.executorBearer("bob"));
        awaitProcessed(fresh);
        assertThat(approvals(second)).containsExactly("bob");
    }

    /** A token without a jti cannot be made single use: refused, parked, nothing approved. */
    @Test
    void anApproverTokenWithoutAJtiIsRefused() throws Exception {
        policy(2, true);
        var high = ProposalMother.staged(kafka, tenant, "900.00");
        java.time.Instant now = java.time.Instant.now();
        String withoutJti = dev.countersign.devsupport.testing.TestProperties.tokens().sign(java.util.Map.of("iss",
                dev.countersign.devsupport.DevTokens.ISSUER, "sub", "bob", "preferred_username", "bob", "tenant",
                tenant.id(), "aud", java.util.List.of(dev.countersign.contracts.Audiences.EXECUTOR), "groups",
                java.util.List.of(dev.countersign.contracts.Groups.USER, dev.countersign.contracts.Groups.APPROVER),
                "iat", now.getEpochSecond(), "exp", now.plusSeconds(300).getEpochSecond()));
        String marker = "no-jti-" + UUID.randomUUID();

        sendAsApprover(high.decided("confirm", high.tokenFromExecutor()).put("userId", "bob").put("marker", marker),
                withoutJti);

        assertThat(kafka.awaitRecords(Topics.ACTIONS_DECISIONS_DEAD_LETTER, value -> value.contains(marker)))
                .singleElement()
                .satisfies(record -> assertThat(KafkaCompanion.getHeader(record.headers(), "dead-letter-reason"))
                        .isEqualTo("approver token refused: no_token_id"));
        assertThat(Db.count("SELECT count(*) FROM action_approvals WHERE action_id = ?", high.actionId)).isZero();
    }

    @Test
    void anApproverTokenOfSomeoneElseOrForTheAgentIsRefusedAndParkedWithoutTokens() throws Exception {
        policy(2, true);
        var high = ProposalMother.staged(kafka, tenant, "900.00");
        String marker = "approver-" + UUID.randomUUID();
        String bobsToken = tenant.executorBearer("bob");
        String agentToken = dev.countersign.devsupport.testing.TestProperties.agentBearer(tenant.id(), "carol");

        sendAsApprover(high.decided("confirm", high.tokenFromExecutor()).put("userId", "carol").put("marker", marker),
                bobsToken);
        sendAsApprover(high.decided("confirm", high.tokenFromExecutor()).put("userId", "carol").put("marker", marker),
                agentToken);

        var parked = kafka.read(Topics.ACTIONS_DECISIONS_DEAD_LETTER, value -> value.contains(marker),
                found -> found.size() >= 2, Duration.ofSeconds(20));
        assertThat(parked).hasSize(2).allSatisfy(value -> assertThat(value).doesNotContain(high.tokenFromExecutor())
                .doesNotContain(bobsToken).doesNotContain(agentToken));
        assertThat(Db.count("SELECT count(*) FROM action_approvals WHERE action_id = ?", high.actionId)).isZero();
        assertThat(Db.status(high.actionId)).isEqualTo("proposed");
    }

    @Test
    void aPersonWhoConfirmedOverHttpDoesNotCountAgainThroughAnUnverifiedDecision() throws Exception {
        policy(2, true);
        var high = ProposalMother.staged(kafka, tenant, "900.00");
        high.decide("confirm", tenant.executorBearer("bob")).then().statusCode(202);
        // The same bob "again", relayed without an approver token: recorded, never counted under k = 2.
        ObjectNode relayed = high.decided("confirm", high.tokenFromExecutor()).put("userId", "bob");
        send(relayed);
        awaitProcessed(relayed);
        assertThat(Db.status(high.actionId)).isEqualTo("proposed");
        assertThat(approvals(high)).containsExactly("bob", "integration:unverified");
        high.decide("confirm", tenant.executorBearer("carol")).then().statusCode(200);
        assertThat(Db.status(high.actionId)).isEqualTo("executed");
    }

    @Test
    void anIntegrationCannotConfirmWhatItProposedWithoutAVerifiedPerson() throws Exception {
        var proposal = new ProposalMother(tenant, "12.00");
        proposal.event.put("userId", "service:ticket-bridge");
        proposal.withEvidence(TestProperties.tokens().mintService(tenant.id(), "ticket-bridge",
                dev.countersign.contracts.Audiences.INTEGRATION, Duration.ofMinutes(5)));
        proposal.stage(kafka);
        // The integration holds the token it minted; its own decision, with no approver token, is no person.
        ObjectNode own = proposal.decided("confirm", proposal.tokenFromExecutor()).put("userId", "alice");
        send(own);
        awaitProcessed(own);
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
        proposal.decide("confirm", tenant.executorBearer("alice")).then().statusCode(200);
        assertThat(Db.status(proposal.actionId)).isEqualTo("executed");
    }
}
