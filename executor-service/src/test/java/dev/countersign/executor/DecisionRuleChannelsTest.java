package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.Groups;
import dev.countersign.contracts.KafkaHeaders;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The decision rule (docs/security/authorization.md) on each channel it guards, end to end, with tokens carrying only
 * the groups each case names: one refused and one allowed case per channel. The case the issue found: dave, a plain
 * user, proposes a HIGH expense in alice's wallet and confirms it himself.
 */
@QuarkusTest
@ExecutorTestResources
class DecisionRuleChannelsTest {

    private static final Duration LIFETIME = Duration.ofMinutes(10);

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void aliceWallet() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    private String token(String user, String... groups) {
        return tenant.bearer(user, groups);
    }

    /** dave's HIGH expense (over the default threshold) in alice's wallet, staged. */
    private ProposalMother davesExpenseInAlicesWallet() throws Exception {
        return new ProposalMother(tenant, "900.00").by("dave").stage(kafka);
    }

    @Test
    void overHttpTheRequesterCannotConfirmAWriteToAnotherPersonsWalletAndItsOwnerCan() throws Exception {
        ProposalMother proposal = davesExpenseInAlicesWallet();
        assertThat(Db.text("SELECT tier || ' ' || target_owner FROM actions WHERE id = ?", proposal.actionId))
                .isEqualTo("high alice");

        // The page offers what the rule allows: the action's view says so for each reader.
        given().header("Authorization", "Bearer " + token("dave", Groups.USER))
                .get("/api/actions/{id}", proposal.actionId).then().statusCode(200)
                .body("youMay", contains("cancel"));
        given().header("Authorization", "Bearer " + token("alice", Groups.USER))
                .get("/api/actions/{id}", proposal.actionId).then().statusCode(200)
                .body("youMay", contains("confirm", "cancel"));

        proposal.decide("confirm", token("dave", Groups.USER)).then().statusCode(403).body("code",
                equalTo("forbidden"));
        // ... nor as an approver: a write to another person's row needs its owner or an approver who did not ask.
        proposal.decide("confirm", token("dave", Groups.USER, Groups.APPROVER)).then().statusCode(403);
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");

        proposal.decide("confirm", token("alice", Groups.USER)).then().statusCode(200)
                .body("status", equalTo("executed"));
        assertThat(proposal.ledgerRows()).isOne();
    }

    /**
     * bob, who may not even read dave's expense in alice's wallet, is answered as for an action that does not exist,
     * confirming or cancelling: no 403 telling it exists, and none of its parameters (before, the refusal carried the
     * whole view: parameters, result, target snapshot).
     */
    @Test
    void aPlainUserWhoNeitherAskedNorOwnsCannotConfirmAndAnApproverCan() throws Exception {
        ProposalMother proposal = davesExpenseInAlicesWallet();

        for (String decision : List.of("confirm", "cancel")) {
            proposal.decide(decision, token("bob", Groups.USER)).then().statusCode(404)
                    .body("code", equalTo("action_not_found")).body("action", nullValue())
                    .body(not(org.hamcrest.Matchers.containsString("900.00")));
        }
        given().header("Authorization", "Bearer " + token("bob", Groups.USER))
                .post("/api/actions/{id}/undo", proposal.actionId).then().statusCode(404);
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
        proposal.decide("confirm", token("carol", Groups.USER, Groups.APPROVER)).then().statusCode(200)
                .body("status", equalTo("executed"));
    }

    @Test
    void inABatchTheRequesterIsRefusedAsOnItsOwn() throws Exception {
        ProposalMother proposal = davesExpenseInAlicesWallet();
        Map<String, Object> batch = Map.of("items",
                List.of(Map.of("actionId", proposal.actionId.toString(), "paramsHash", proposal.paramsHash())));

        given().contentType("application/json").header("Authorization", "Bearer " + token("dave", Groups.USER))
                .body(Json.write(batch)).post("/api/actions/confirm-batch")
                .then().statusCode(409).body("code", equalTo("batch_refused"))
                .body("violations[0].message", equalTo("forbidden"));
        given().contentType("application/json").header("Authorization", "Bearer " + token("alice", Groups.USER))
                .body(Json.write(batch)).post("/api/actions/confirm-batch")
                .then().statusCode(200).body("[0].status", equalTo("executed"));
    }

    /**
     * On the decisions topic a verified approver is judged by the same rule: dave's own executor token (user only)
     * decided nothing; alice's decision, keyed the same (one partition, in order), then runs it, confirmed by her.
     */
    @Test
    void onTheTopicAVerifiedPersonIsJudgedByTheSameRule() throws Exception {
        ProposalMother proposal = davesExpenseInAlicesWallet();
        String confirmToken = proposal.tokenFromExecutor();

        ObjectNode byDave = proposal.decided("confirm", confirmToken).put("userId", "dave");
        send(byDave, token("dave", Groups.USER));
        ObjectNode byAlice = proposal.decided("confirm", confirmToken).put("userId", "alice");
        send(byAlice, token("alice", Groups.USER));

        Db.awaitStatus(proposal.actionId, "executed");
        assertThat(Db.text("SELECT confirmed_by FROM actions WHERE id = ?", proposal.actionId)).isEqualTo("alice");
    }

    @Test
    void importedRowsAreConfirmedByTheirImporterOrAnApproverNotByAnyoneInTheTenant() {
        List<String> ids = given().header("Authorization", "Bearer " + token("alice", Groups.USER))
                .contentType("text/csv").queryParam("wallet", tenant.wallet())
                .body("2026-12-01,4.20,coffee\n").post("/api/actions/imports")
                .then().statusCode(200).extract().jsonPath().getList("transactionIds", String.class);

        confirmImported("bob", ids, Groups.USER).statusCode(403).body("code", equalTo("forbidden"));
        confirmImported("alice", ids, Groups.USER).statusCode(200).body(equalTo("1"));
    }

    @Test
    void aRequesterCannotGetANewConfirmTokenForTheirOwnActionAndAnotherApproverCan() throws Exception {
        ProposalMother proposal = new ProposalMother(tenant, "12.00").stage(kafka);

        given().header("Authorization", "Bearer " + token("alice", Groups.USER, Groups.APPROVER))
                .post("/api/actions/{id}/reissue-token", proposal.actionId).then().statusCode(403);
        given().header("Authorization", "Bearer " + token("carol", Groups.USER, Groups.APPROVER))
                .post("/api/actions/{id}/reissue-token", proposal.actionId).then().statusCode(200);
    }

    /**
     * Reads follow the rule: bob, a plain user who neither asked for dave's expense nor owns alice's wallet, does not
     * see it, in the list or by id (404, as for an action that does not exist), nor its history or approvers; the
     * owner, the requester and an approver do. Without the rule bob listed every action of the tenant.
     */
    @Test
    void aPlainUserSeesNeitherAnotherPersonsActionNorItsHistoryAndTheOwnerAndAnApproverDo() throws Exception {
        ProposalMother proposal = davesExpenseInAlicesWallet();
        String id = proposal.actionId.toString();
        String bob = token("bob", Groups.USER);

        given().header("Authorization", "Bearer " + bob).get("/api/actions").then().statusCode(200)
                .body("items.id", not(hasItem(id)));
        for (String path : List.of("/api/actions/{id}", "/api/actions/{id}/history", "/api/actions/{id}/approvals")) {
            given().header("Authorization", "Bearer " + bob).get(path, id).then().statusCode(404)
                    .body("code", equalTo("action_not_found"));
        }
        for (String reader : List.of("alice", "dave")) {
            given().header("Authorization", "Bearer " + token(reader, Groups.USER)).get("/api/actions")
                    .then().statusCode(200).body("items.id", hasItem(id));
        }
        given().header("Authorization", "Bearer " + token("carol", Groups.USER, Groups.APPROVER))
                .get("/api/actions/{id}/history", id).then().statusCode(200);
        given().header("Authorization", "Bearer " + token("erin", Groups.USER, Groups.ADMIN))
                .get("/api/actions/{id}", id).then().statusCode(200).body("params.amount", equalTo("900.00"));
    }

    /** Imported rows waiting for a person are their importer's to see, and an approver's; not a colleague's. */
    @Test
    void aPlainUserSeesNeitherAnotherPersonsPendingImportsNorTheirTrail() {
        List<String> ids = given().header("Authorization", "Bearer " + token("alice", Groups.USER))
                .contentType("text/csv").queryParam("wallet", tenant.wallet())
                .body("2026-12-01,4.20,coffee\n").post("/api/actions/imports")
                .then().statusCode(200).extract().jsonPath().getList("transactionIds", String.class);

        given().header("Authorization", "Bearer " + token("bob", Groups.USER)).get("/api/actions/imports")
                .then().statusCode(200).body("id", empty());
        given().header("Authorization", "Bearer " + token("bob", Groups.USER))
                .get("/api/actions/imports/{id}/history", ids.get(0)).then().statusCode(404);
        for (String reader : List.of(token("alice", Groups.USER), token("carol", Groups.USER, Groups.APPROVER))) {
            given().header("Authorization", "Bearer " + reader).get("/api/actions/imports")
                    .then().statusCode(200).body("id", contains(ids.get(0)));
            given().header("Authorization", "Bearer " + reader)
                    .get("/api/actions/imports/{id}/history", ids.get(0)).then().statusCode(200);
        }
    }

    /**
     * An integration's unverified decision (the confirm token alone, naming a person it cannot prove) does not decide a
     * write to another person's row; alice's verified decision, keyed the same and so processed after it, does.
     */
    @Test
    void onTheTopicAnUnverifiedDecisionCannotConfirmAWriteToAnotherPersonsRow() throws Exception {
        ProposalMother proposal = davesExpenseInAlicesWallet();
        String confirmToken = proposal.tokenFromExecutor();

        ObjectNode claimed = proposal.decided("confirm", confirmToken).put("userId", "bob");
        kafka.send(Topics.ACTIONS_DECISIONS, proposal.actionId.toString(), Json.write(claimed));
        send(proposal.decided("confirm", confirmToken).put("userId", "alice"), token("alice", Groups.USER));

        Db.awaitStatus(proposal.actionId, "executed");
        assertThat(Db.text("SELECT confirmed_by FROM actions WHERE id = ?", proposal.actionId)).isEqualTo("alice");
    }

    /**
     * A client-credentials token shaped as Keycloak issues one (a UUID subject, the client in azp, its service
     * account's name) with every group: never a person, over HTTP or as an approver on the topic. Without the service
     * check the approver group alone would let it confirm (it neither asked nor owns).
     */
    @Test
    void aServicePrincipalIsNeverAPersonWhateverItsGroups() throws Exception {
        ProposalMother proposal = davesExpenseInAlicesWallet();
        String subject = java.util.UUID.randomUUID().toString();
        String service = serviceToken(subject, "bridge", "service-account-bridge");

        proposal.decide("confirm", service).then().statusCode(404); // a service reads no action either
        send(proposal.decided("confirm", proposal.tokenFromExecutor()).put("userId", subject), service);
        send(proposal.decided("confirm", proposal.tokenFromExecutor()).put("userId", "alice"), token("alice",
                Groups.USER));

        Db.awaitStatus(proposal.actionId, "executed");
        assertThat(Db.text("SELECT confirmed_by FROM actions WHERE id = ?", proposal.actionId)).isEqualTo("alice");
    }

    /** An integration named in countersign.security.integration-clients is a service, however its token looks. */
    @Test
    void aConfiguredIntegrationClientIsAServiceEvenWithAPersonLikeToken() throws Exception {
        ProposalMother proposal = davesExpenseInAlicesWallet();

        proposal.decide("confirm", serviceToken("erin", "config-bridge", "erin")).then().statusCode(404);
        proposal.decide("confirm", serviceToken("erin", "countersign-decision-page", "erin")).then().statusCode(200);
    }

    /** A token of {@code client} (azp) for {@code subject}, with every group: what makes it a service is the test. */
    private String serviceToken(String subject, String client, String username) {
        java.time.Instant now = java.time.Instant.now();
        return TestProperties.tokens().sign(Map.of("iss", dev.countersign.devsupport.DevTokens.ISSUER, "sub", subject,
                "azp", client, "preferred_username", username, "tenant", tenant.id(),
                "aud", List.of(Audiences.EXECUTOR), "groups", List.of(Groups.USER, Groups.APPROVER, Groups.ADMIN),
                "iat", now.getEpochSecond(), "exp", now.plus(LIFETIME).getEpochSecond(),
                "jti", java.util.UUID.randomUUID().toString()));
    }

    private io.restassured.response.ValidatableResponse confirmImported(String user, List<String> ids,
            String... groups) {
        return given().header("Authorization", "Bearer " + token(user, groups)).contentType("application/json")
                .body(Json.write(Map.of("transactionIds", ids))).post("/api/actions/imports/confirm").then();
    }

    private void send(ObjectNode event, String approverToken) {
        kafka.send(Topics.ACTIONS_DECISIONS, event.get("actionId").asText(), Json.write(event),
                Map.of(KafkaHeaders.APPROVER, approverToken));
    }
}
