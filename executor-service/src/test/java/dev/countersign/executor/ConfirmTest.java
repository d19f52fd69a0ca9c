package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.ContractFixtures;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.DevTokens;
import dev.countersign.devsupport.testing.MetricsText;
import dev.countersign.devsupport.testing.Race;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

@QuarkusTest
@ExecutorTestResources
class ConfirmTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;
    private String alice;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
        alice = tenant.executorBearer("alice");
    }

    private ProposalMother staged(String amount) throws Exception {
        return ProposalMother.staged(kafka, tenant, amount);
    }

    private Response confirm(ProposalMother proposal, String bearer) {
        return proposal.decide("confirm", bearer);
    }

    private int ledgerRows(ProposalMother proposal) throws Exception {
        return proposal.ledgerRows();
    }

    @Test
    void confirmingExecutesAndWritesTheLedgerRowOnce() throws Exception {
        var proposal = staged("12.50");

        confirm(proposal, alice).then().statusCode(200)
                .body("status", equalTo("executed"))
                .body("confirmedBy", equalTo("alice"))
                .body("result.amount", equalTo("12.50"));

        assertThat(ledgerRows(proposal)).isEqualTo(1);
        assertThat(Db.count("SELECT count(*) FROM transactions WHERE source_action_id = ? AND wallet_id = ?"
                + " AND amount = 12.50 AND category = 'coffee' AND tenant_id = ?", proposal.actionId, tenant.wallet(),
                tenant.id()))
                .isEqualTo(1);
    }

    @Test
    void executionIsAnnouncedWithActionExecutedInTheGoldenShape() throws Exception {
        var proposal = staged("12.50");

        confirm(proposal, alice).then().statusCode(200);

        var executed = kafka.awaitAny(Topics.ACTIONS_OUTCOMES,
                value -> value.contains(proposal.actionId.toString()) && value.contains("ActionExecuted"));
        assertThat(executed).hasSize(1);
        JsonNode event = Json.mapper().readTree(executed.get(0));
        assertThat(ContractFixtures.memberNames(event))
                .containsExactlyInAnyOrderElementsOf(ContractFixtures.memberNames(ContractFixtures.ACTION_EXECUTED));
        assertThat(executed.get(0)).doesNotContain(proposal.token);
    }

    @Test
    void theHistoryRecordsEveryStateWithWhoAndThroughWhichChannel() throws Exception {
        var proposal = staged("12.50");
        confirm(proposal, alice).then().statusCode(200);

        given().header("Authorization", "Bearer " + alice).get("/api/actions/{id}/history", proposal.actionId)
                .then().statusCode(200)
                .body("to", contains("proposed", "confirmed", "executed"))
                .body("from", contains(null, "proposed", "confirmed"))
                .body("actor", contains("alice", "alice", "alice"))
                .body("channel", contains("agent", "http", "http"));
        String mallory = TestProperties.executorBearer("other-" + UUID.randomUUID(), "mallory");
        given().header("Authorization", "Bearer " + mallory).get("/api/actions/{id}/history", proposal.actionId)
                .then().statusCode(404).body("code", equalTo("action_not_found"));
    }

    private Response cancel(ProposalMother proposal, String bearer) {
        return proposal.decide("cancel", bearer);
    }

    @Test
    void aCancelledProposalNeverRunsAndIsAnnounced() throws Exception {
        var proposal = staged("12.50");

        cancel(proposal, alice).then().statusCode(200).body("status", equalTo("cancelled"));
        confirm(proposal, alice).then().statusCode(409)
                .body("code", equalTo("invalid_state_transition")).body("action.status", equalTo("cancelled"));
        cancel(proposal, alice).then().statusCode(409).body("action.status", equalTo("cancelled"));

        assertThat(ledgerRows(proposal)).isZero();
        var cancelled = kafka.awaitAny(Topics.ACTIONS_OUTCOMES,
                value -> value.contains(proposal.actionId.toString()) && value.contains("ActionCancelled"));
        assertThat(cancelled).hasSize(1);
        assertThat(ContractFixtures.memberNames(Json.mapper().readTree(cancelled.get(0))))
                .containsExactlyInAnyOrderElementsOf(ContractFixtures.memberNames(ContractFixtures.ACTION_CANCELLED));
        given().header("Authorization", "Bearer " + alice).get("/api/actions/{id}/history", proposal.actionId)
                .then().body("to", contains("proposed", "cancelled")).body("channel[1]", equalTo("http"));
    }

    @Test
    void onlyTheRequesterOrAnApproverOfTheTenantMayDecideAndAnotherTenantSeesNothing() throws Exception {
        var proposal = staged("12.50");
        String dave = TestProperties.executorBearerWithoutApproval(tenant.id(), "dave");
        String mallory = TestProperties.executorBearer("other-" + UUID.randomUUID(), "mallory");

        // A colleague without the approver role, who neither asked for it nor owns its row: he may not even read it,
        // so it does not exist for him either (the decision rule's read row), and nothing of it is told.
        confirm(proposal, dave).then().statusCode(404).contentType("application/problem+json")
                .body("code", equalTo("action_not_found")).body("action", nullValue());
        cancel(proposal, dave).then().statusCode(404).body("code", equalTo("action_not_found"));
        // Another tenant's approver: the action does not exist for them.
        confirm(proposal, mallory).then().statusCode(404).body("code", equalTo("action_not_found"));
        cancel(proposal, mallory).then().statusCode(404).body("code", equalTo("action_not_found"));
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
        assertThat(Db.count("SELECT count(*) FROM action_history WHERE action_id = ?", proposal.actionId))
                .isEqualTo(1);

        // The requester without the approver role decides her own proposal.
        String aliceWithoutApproval = TestProperties.executorBearerWithoutApproval(tenant.id(), "alice");
        confirm(proposal, aliceWithoutApproval).then().statusCode(200).body("status", equalTo("executed"));
    }

    @Test
    void confirmAndCancelRacingDecideOnceAndTheLoserLearnsTheWinner() throws Exception {
        var proposal = staged("12.50");

        List<Response> answers = Race.together(List.of(() -> confirm(proposal, alice),
                () -> cancel(proposal, alice)));

        assertThat(answers).extracting(Response::statusCode).containsExactlyInAnyOrder(200, 409);
        String finalStatus = Db.status(proposal.actionId);
        assertThat(finalStatus).isIn("executed", "cancelled");
        Response loser = answers.stream().filter(r -> r.statusCode() == 409).findFirst().orElseThrow();
        assertThat(loser.jsonPath().getString("action.status")).isEqualTo(finalStatus);
        assertThat(ledgerRows(proposal)).isEqualTo("executed".equals(finalStatus) ? 1 : 0);
    }

    @Test
    void onlyApproversReissueTokens() throws Exception {
        var proposal = staged("12.50");
        String plainUser = TestProperties.executorBearerWithoutApproval(tenant.id(), "alice");

        given().header("Authorization", "Bearer " + plainUser).post("/api/actions/{id}/reissue-token",
                proposal.actionId).then().statusCode(403).contentType("application/problem+json")
                .body("code", equalTo("forbidden"));
        confirm(proposal, alice).then().statusCode(200);
    }

    @Test
    void anotherUserOfTheTenantMayConfirmAndTheMismatchIsRecordedAndCounted() throws Exception {
        var proposal = staged("12.50");
        var ownConfirm = staged("1.00");
        String bob = tenant.executorBearer("bob");
        double before = actorMismatchCount();

        confirm(proposal, bob).then().statusCode(200).body("confirmedBy", equalTo("bob"));
        confirm(ownConfirm, alice).then().statusCode(200).body("confirmedBy", equalTo("alice"));

        given().header("Authorization", "Bearer " + alice).get("/api/actions/{id}/history", proposal.actionId)
                .then().body("actor[1]", equalTo("bob")).body("reason[1]", org.hamcrest.Matchers.startsWith(
                        "actor mismatch"));
        assertThat(actorMismatchCount()).isEqualTo(before + 1);
    }

    /** The Prometheus counter of confirmations by another user than the requester, for the catalogue's expense kind. */
    private static double actorMismatchCount() {
        return MetricsText.value(given().get(Management.url("/metrics")).then().statusCode(200).extract().asString(),
                "countersign_actions_actor_mismatch_total", "kind=\"ledger.transaction.create\"");
    }

    @Test
    void aConfirmNamingOtherParametersThanTheStoredOnesRunsNothing() throws Exception {
        var proposal = staged("12.50");
        String storedHash = proposal.event.get("paramsHash").asText();

        given().contentType("application/json").header("Authorization", "Bearer " + alice)
                .body("{\"paramsHash\":\"" + "0".repeat(64) + "\"}")
                .post("/api/actions/{id}/confirm", proposal.actionId)
                .then().statusCode(409).contentType("application/problem+json")
                .body("code", equalTo("params_mismatch")).body("action.status", equalTo("proposed"));
        assertThat(ledgerRows(proposal)).isZero();

        given().contentType("application/json").header("Authorization", "Bearer " + alice)
                .body("{\"paramsHash\":\"" + storedHash + "\"}")
                .post("/api/actions/{id}/confirm", proposal.actionId)
                .then().statusCode(200).body("status", equalTo("executed"));
    }

    @Test
    void aConfirmWithoutTheParamsHashIsRefusedAndChangesNothing() throws Exception {
        var proposal = staged("12.50");

        for (String body : List.of("{}", "{\"paramsHash\":null}", "{\"paramsHash\":\"\"}",
                "{\"paramsHash\":\"" + proposal.paramsHash().toUpperCase() + "\"}")) {
            given().contentType("application/json").header("Authorization", "Bearer " + alice).body(body)
                    .post("/api/actions/{id}/confirm", proposal.actionId)
                    .then().statusCode(400).contentType("application/problem+json")
                    .body("code", equalTo("params_hash_required"));
        }
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
        assertThat(Db.count("SELECT count(*) FROM action_history WHERE action_id = ?", proposal.actionId))
                .isEqualTo(1);
        assertThat(ledgerRows(proposal)).isZero();

        confirm(proposal, alice).then().statusCode(200).body("status", equalTo("executed"));
    }

    @Test
    void aCancelNeedsNoParamsHash() throws Exception {
        var proposal = staged("12.50");

        proposal.decide("cancel", alice).then().statusCode(200)
                .body("status", equalTo("cancelled"));
    }

    @Test
    void aSecondConfirmIsRefusedWithTheWinnersStatus() throws Exception {
        var proposal = staged("12.50");
        confirm(proposal, alice).then().statusCode(200);

        confirm(proposal, alice).then().statusCode(409)
                .contentType("application/problem+json")
                .body("code", equalTo("invalid_state_transition"))
                .body("action.status", equalTo("executed"))
                .body("action.result.amount", equalTo("12.50"));

        assertThat(ledgerRows(proposal)).isEqualTo(1);
    }

    @Test
    void anotherTenantAndAnUnknownIdLookTheSame() throws Exception {
        var proposal = staged("12.50");
        String mallory = TestProperties.executorBearer("other-" + UUID.randomUUID(), "mallory");

        var otherTenant = confirm(proposal, mallory);
        var unknown = given().contentType("application/json").header("Authorization", "Bearer " + alice)
                .body("{\"paramsHash\":\"" + proposal.paramsHash() + "\"}")
                .post("/api/actions/{id}/confirm", UUID.randomUUID());

        for (Response response : List.of(otherTenant, unknown)) {
            response.then().statusCode(404).contentType("application/problem+json")
                    .body("code", equalTo("action_not_found"));
        }
        assertThat(otherTenant.body().asString()).isEqualTo(unknown.body().asString());
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
        given().header("Authorization", "Bearer " + mallory).get("/api/actions/{id}", proposal.actionId)
                .then().statusCode(404);
    }

    @Test
    void withoutABearerTokenTheAnswerIs401() throws Exception {
        var proposal = staged("12.50");

        confirm(proposal, null).then().statusCode(401)
                .contentType("application/problem+json").body("code", equalTo("unauthenticated"));

        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
    }

    @Test
    void aTokenIssuedLongerAgoThanTheMaximumAgeCannotConfirmEvenBeforeItExpires() throws Exception {
        var proposal = staged("12.50");
        // Signed by the trusted key, right issuer and audience, exp still in the future: only its age is wrong.
        String stale = TestProperties.bearerIssuedAt(tenant.id(), "alice",
                java.time.Instant.now().minus(java.time.Duration.ofMinutes(62)), Audiences.EXECUTOR);
        String fresh = TestProperties.bearerIssuedAt(tenant.id(), "alice",
                java.time.Instant.now().minus(java.time.Duration.ofMinutes(55)), Audiences.EXECUTOR);

        confirm(proposal, stale).then().statusCode(401)
                .contentType("application/problem+json").body("code", equalTo("unauthenticated"));
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");

        confirm(proposal, fresh).then().statusCode(200).body("status", equalTo("executed"));
    }

    @Test
    void tokensSignedByAnotherKeyFromAnotherIssuerWithoutIatOrExpiredCannotConfirm() throws Exception {
        var proposal = staged("12.50");
        long now = java.time.Instant.now().getEpochSecond();
        Map<String, Object> good = Map.of("iss", DevTokens.ISSUER, "sub", "alice", "tenant", tenant.id(), "aud",
                List.of(Audiences.EXECUTOR), "groups", List.of("user", "approver"), "iat", now, "exp", now + 300);
        DevTokens trusted = TestProperties.tokens();

        List<String> refused = List.of(
                DevTokens.generate().sign(good),
                trusted.sign(with(good, "iss", "https://elsewhere.example/realms/countersign")),
                trusted.sign(without(good, "iat")),
                trusted.sign(with(with(good, "iat", now - 600), "exp", now - 300)),
                trusted.sign(without(good, "aud")));
        for (String token : refused) {
            confirm(proposal, token).then().statusCode(401)
                    .contentType("application/problem+json").body("code", equalTo("unauthenticated"));
        }
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");

        // The same claims, signed by the trusted key: the control that shows the refusals above are about the token.
        confirm(proposal, trusted.sign(good)).then().statusCode(200).body("status",
                equalTo("executed"));
    }

    private static Map<String, Object> with(Map<String, Object> claims, String name, Object value) {
        Map<String, Object> copy = new java.util.HashMap<>(claims);
        copy.put(name, value);
        return copy;
    }

    private static Map<String, Object> without(Map<String, Object> claims, String name) {
        Map<String, Object> copy = new java.util.HashMap<>(claims);
        copy.remove(name);
        return copy;
    }

    @Test
    void aTokenIssuedForTheAgentCannotConfirmEvenWithTheExecutorAudienceToo() throws Exception {
        var proposal = staged("12.50");
        String agentToken = TestProperties.agentBearer(tenant.id(), "alice");
        String bothAudiences = TestProperties.bearer(tenant.id(), "alice", Audiences.AGENT, Audiences.EXECUTOR);

        for (String token : List.of(agentToken, bothAudiences)) {
            confirm(proposal, token).then().statusCode(401)
                    .contentType("application/problem+json").body("code", equalTo("unauthenticated"));
        }

        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
    }

    @Test
    void aBodyThatIsNotJsonIsAValidationProblem() throws Exception {
        var proposal = staged("12.50");

        given().contentType("application/json").header("Authorization", "Bearer " + alice).body("{\"token\": ")
                .post("/api/actions/{id}/confirm", proposal.actionId)
                .then().statusCode(400).contentType("application/problem+json")
                .body("code", equalTo("validation_failed"));
        given().contentType("application/json").header("Authorization", "Bearer " + alice)
                .body("{\"token\": {\"nested\": true}}")
                .post("/api/actions/{id}/confirm", proposal.actionId)
                .then().statusCode(400).contentType("application/problem+json");
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
    }

    @Test
    void theApiIsDescribedByAnOpenApiDocument() {
        given().get(Management.url("/openapi?format=json")).then().statusCode(200)
                .body("paths.'/api/actions/{id}/confirm'.post", org.hamcrest.Matchers.notNullValue())
                .body("paths.'/api/actions/confirm-batch'.post", org.hamcrest.Matchers.notNullValue());
    }

    @Test
    void aWrongMethodIsAProblemNotAServerError() {
        given().header("Authorization", "Bearer " + alice).get("/api/actions/{id}/confirm", UUID.randomUUID())
                .then().statusCode(405).contentType("application/problem+json")
                .body("code", equalTo("method_not_allowed"));
    }

    @Test
    void parametersChangedBehindTheApplicationsBackAreNotExecuted() throws Exception {
        var proposal = staged("12.50");
        // Only possible by switching the guard trigger off, which the owner role can do: the hash check still holds.
        try (var owner = Db.owner(); var sql = owner.createStatement()) {
            owner.setAutoCommit(false);
            sql.execute("ALTER TABLE actions DISABLE TRIGGER actions_guard");
            sql.execute("UPDATE actions SET params = jsonb_set(params, '{amount}', '\"9999.00\"') WHERE id = '"
                    + proposal.actionId + "'");
            sql.execute("ALTER TABLE actions ENABLE TRIGGER actions_guard");
            owner.commit();
        }

        confirm(proposal, alice).then().statusCode(409)
                .body("code", equalTo("params_mismatch"))
                .body("action.status", equalTo("failed"));

        assertThat(ledgerRows(proposal)).isZero();
    }

    @Test
    void aTokenInTheBodyIsIgnoredTheSignedInPersonDecides() throws Exception {
        var proposal = staged("12.50");

        // What older clients sent: the proposer's token is no authority, and its presence changes nothing.
        given().contentType("application/json").header("Authorization", "Bearer " + alice)
                .body(Json.write(Map.of("token", proposal.token, "paramsHash", proposal.paramsHash())))
                .post("/api/actions/{id}/confirm", proposal.actionId)
                .then().statusCode(200).body("status", equalTo("executed"));
    }

    @Test
    void simultaneousConfirmsExecuteExactlyOnce() throws Exception {
        var proposal = staged("12.50");
        int contenders = 32;

        List<Integer> statuses = Race.times(contenders, () -> confirm(proposal, alice).statusCode());

        assertThat(statuses).filteredOn(status -> status == 200).hasSize(1);
        assertThat(statuses).filteredOn(status -> status == 409).hasSize(contenders - 1);
        assertThat(ledgerRows(proposal)).isEqualTo(1);
    }

    @Test
    void anExpiredProposalCannotBeConfirmed() throws Exception {
        var proposal = staged("12.50");
        // The confirm, not the sweep, finds the window closed (Db.closeTheWindowWhile).
        var confirming = new AtomicReference<CompletableFuture<Response>>();
        Db.closeTheWindowWhile(proposal.actionId,
                () -> confirming.set(CompletableFuture.supplyAsync(() -> confirm(proposal, alice))));

        confirming.get().get(30, TimeUnit.SECONDS).then().statusCode(409)
                .body("code", equalTo("invalid_state_transition"))
                .body("action.status", equalTo("expired"));
        given().header("Authorization", "Bearer " + alice).get("/api/actions/{id}/history", proposal.actionId)
                .then().statusCode(200).body("to", contains("proposed", "expired"))
                .body("reason[1]", equalTo("the decision window closed"));

        // The lock found the window closed, so the write was not sent with the compare-and-swap
        // (ActionExecution.confirmThenRun): sent anyway, the swap would miss after it and the confirm fail (500).
        assertThat(ledgerRows(proposal)).isZero();
        assertThat(Db.status(proposal.actionId)).isEqualTo("expired");
        assertThat(Db.expiryChannel(proposal.actionId)).as("expired by the confirm, not the sweep").isEqualTo("http");
        // The same expiry as the sweep's (ActionLifecycle.expire), announced as ActionExpired.
        assertThat(kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(proposal.actionId.toString())
                && value.contains("ActionExpired"))).hasSize(1);
    }

    @Test
    void aWriteThatIsRefusedFailsTheActionAndWritesNothing() throws Exception {
        // The wallet exists when the expense is staged and is gone when it is confirmed.
        UUID wallet;
        try (var owner = Db.owner()) {
            wallet = DemoData.createWallet(owner, tenant.id(), "alice", "Short-lived", "EUR");
        }
        var proposal = new ProposalMother(tenant.id(), wallet, "12.50");
        proposal.stage(kafka);
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate("DELETE FROM wallets WHERE id = '" + wallet + "'");
        }

        confirm(proposal, alice).then().statusCode(409)
                .contentType("application/problem+json")
                .body("code", equalTo("target_not_found"))
                .body("action.status", equalTo("failed"))
                .body("action.result.error", equalTo("target_not_found"));

        assertThat(ledgerRows(proposal)).isZero();
        var failed = kafka.awaitAny(Topics.ACTIONS_OUTCOMES,
                value -> value.contains(proposal.actionId.toString()) && value.contains("ActionFailed"));
        assertThat(failed).hasSize(1);
        assertThat(ContractFixtures.memberNames(Json.mapper().readTree(failed.get(0))))
                .containsExactlyInAnyOrderElementsOf(ContractFixtures.memberNames(ContractFixtures.ACTION_FAILED));
    }

    @Test
    void aConfirmedRenameChangesTheNameAndNothingElse() throws Exception {
        var proposal = new ProposalMother(tenant, "1.00");
        proposal.event.put("kind", ShippedKinds.RENAME_WALLET);
        proposal.event.set("params",
                Json.mapper().createObjectNode().put("walletId", tenant.wallet().toString()).put("name", "Everyday"));
        proposal.rehash();
        proposal.stage(kafka);

        confirm(proposal, alice).then().statusCode(200)
                .body("status", equalTo("executed"))
                .body("tier", equalTo("medium"))
                .body("result.previousName", equalTo("Checking"))
                .body("result.name", equalTo("Everyday"));

        assertThat(Db.count("SELECT count(*) FROM wallets WHERE id = ? AND name = 'Everyday' AND currency = 'EUR'"
                + " AND version = 2", tenant.wallet())).isEqualTo(1);
    }

    @Test
    void theActionCanBeReadBackWithoutAnyTokenMaterial() throws Exception {
        var proposal = staged("12.50");

        var body = given().header("Authorization", "Bearer " + alice).get("/api/actions/{id}", proposal.actionId)
                .then().statusCode(200).body("status", equalTo("proposed")).extract().asString();

        String storedHash = Db.text("SELECT token_hash FROM actions WHERE id = ?", proposal.actionId);
        assertThat(storedHash).matches("[0-9a-f]{64}");
        assertThat(body).doesNotContain(storedHash).doesNotContain(proposal.token);
    }
}
