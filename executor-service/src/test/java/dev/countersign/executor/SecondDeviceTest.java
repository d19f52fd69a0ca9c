package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.Groups;
import dev.countersign.devsupport.DevTokens;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import dev.countersign.executor.action.DecisionOutcome;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.decision.DecisionRequest;
import dev.countersign.executor.decision.DecisionService;
import dev.countersign.executor.decision.SingleUseApprovals;
import dev.countersign.executor.seconddevice.ApprovalTokens;
import dev.countersign.executor.seconddevice.BindingCodes;
import dev.countersign.executor.seconddevice.SecondDeviceRepository;
import dev.countersign.executor.seconddevice.SecondDeviceRequest;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Second-device approvals (issue 45, docs/approvals.md), the executor's side: an approval's token is no bearer token
 * anywhere, is taken only for the request it answers (its person, tenant and client), decides once and no other action,
 * and its person is judged by the same decision rule and approval policy as on every channel, recorded on channel
 * {@code ciba}; a denial cancels in the person's name; the planner asks only those the rule entitles; the database
 * binds a request to its action's parameters hash. The identity provider's side (Keycloak, the approval device, the
 * poller) is SecondDeviceIT's, in deploy/local-stack.
 */
@QuarkusTest
@ExecutorTestResources
class SecondDeviceTest {

    private static final String CIBA_CLIENT = "countersign-second-device";
    private static final String CIBA_AUDIENCE = "countersign-second-device-approval";

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @Inject
    ApprovalTokens approvalTokens;

    @Inject
    DecisionService decisions;

    @Inject
    TenantTransactions transactions;

    @Inject
    SecondDeviceRepository requests;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    /** A CIBA approval's access token as the identity provider issues it to the executor's CIBA client. */
    private String approvalToken(String tenantId, String user, String client, String audience, String... groups) {
        Instant now = Instant.now();
        Map<String, Object> claims = new HashMap<>(Map.of("iss", DevTokens.ISSUER, "sub", user, "tenant", tenantId,
                "aud", List.of(audience), "groups", List.of(groups), "iat", now.getEpochSecond(),
                "exp", now.plusSeconds(300).getEpochSecond(), "jti", UUID.randomUUID().toString(), "azp", client));
        return TestProperties.tokens().sign(claims);
    }

    /** An executor token of {@code user} with only {@code groups} and their username, as a sign-in records it. */
    private String personToken(String user, String... groups) {
        Instant now = Instant.now();
        Map<String, Object> claims = new HashMap<>(Map.of("iss", DevTokens.ISSUER, "sub", user, "tenant", tenant.id(),
                "aud", List.of(Audiences.EXECUTOR), "groups", List.of(groups), "iat", now.getEpochSecond(),
                "exp", now.plusSeconds(300).getEpochSecond(), "jti", UUID.randomUUID().toString(),
                "preferred_username", user));
        return TestProperties.tokens().sign(claims);
    }

    private String erinsApproval() {
        return approvalToken(tenant.id(), "erin", CIBA_CLIENT, CIBA_AUDIENCE, Groups.USER, Groups.APPROVER);
    }

    /** The request the executor would have recorded for {@code user} and this proposal (the poller's input). */
    private SecondDeviceRequest requestFor(ProposalMother proposal, String user) {
        UUID id = UUID.randomUUID();
        return new SecondDeviceRequest(id, tenant.id(), proposal.actionId, user,
                proposal.paramsHash(), BindingCodes.of(id), "auth-req-" + UUID.randomUUID(),
                SecondDeviceRequest.PENDING, 1, Instant.now().plusSeconds(120), Instant.now(), null);
    }

    /** What the poller does with an approval: the token checked against the request, then a confirm on its behalf. */
    private DecisionOutcome approve(SecondDeviceRequest request, String token) {
        ApprovalTokens.Checked checked = approvalTokens.check(token, request).await().atMost(Duration.ofSeconds(10));
        assertThat(checked).isInstanceOf(ApprovalTokens.Approver.class);
        ApprovalTokens.Approver approver = (ApprovalTokens.Approver) checked;
        return decisions.confirm(DecisionRequest.bySecondDevice(request.actionId(), request.tenantId(),
                approver.principal(), request.notificationId(), request.paramsHash(),
                new DecisionRequest.ApproverToken(approver.tokenId(), approver.expiresAt())))
                .await().atMost(Duration.ofSeconds(15));
    }

    private String historyOf(UUID actionId, String toStatus) throws SQLException {
        return Db.text("SELECT actor || ' via ' || channel FROM action_history WHERE action_id = ? AND to_status = ?",
                actionId, toStatus);
    }

    @Test
    void anApprovalsTokenIsNoBearerTokenOfTheExecutorsApi() throws Exception {
        var proposal = ProposalMother.staged(kafka, tenant, "900.00");
        String token = erinsApproval();

        given().header("Authorization", "Bearer " + token).get("/api/actions").then().statusCode(401);
        given().header("Authorization", "Bearer " + token).contentType("application/json")
                .body(Map.of("paramsHash", proposal.paramsHash())).post("/api/actions/{id}/confirm", proposal.actionId)
                .then().statusCode(401);
        given().header("Authorization", "Bearer " + token).get("/api/second-device/requests").then().statusCode(401);
        // Nor is a token for two audiences, the executor's and the approvals' (countersign.security.exclusive-audiences).
        String both = TestProperties.tokens().mint(tenant.id(), "erin", List.of(Audiences.EXECUTOR, CIBA_AUDIENCE),
                List.of(Groups.APPROVER), Duration.ofMinutes(5));
        given().header("Authorization", "Bearer " + both).get("/api/actions").then().statusCode(401);
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
    }

    @Test
    void anApprovalConfirmsOnceInThePersonsNameOnChannelCibaAndTheSameTokenDecidesNoOtherAction() throws Exception {
        var first = ProposalMother.staged(kafka, tenant, "900.00");
        var second = ProposalMother.staged(kafka, tenant, "901.00");
        String token = erinsApproval();
        SecondDeviceRequest request = requestFor(first, "erin");

        assertThat(approve(request, token)).isInstanceOf(DecisionOutcome.Executed.class);
        assertThat(historyOf(first.actionId, "executed")).isEqualTo("erin via ciba");
        assertThat(first.ledgerRows()).isEqualTo(1);
        // The same answer taken twice (a poller that retried) decides nothing more: the request is the event.
        assertThat(approve(request, token)).isInstanceOf(DecisionOutcome.AlreadyDecided.class);

        // The token replayed onto another action, as if it answered that action's request: refused, nothing written.
        SecondDeviceRequest other = requestFor(second, "erin");
        assertThatThrownBy(() -> approve(other, token)).isInstanceOf(SingleUseApprovals.AlreadyUsed.class);
        assertThat(Db.status(second.actionId)).isEqualTo("proposed");
        assertThat(second.ledgerRows()).isZero();
    }

    @Test
    void aTokenOfAnotherPersonTenantOrClientIsNotTakenForTheRequest() {
        SecondDeviceRequest request = new SecondDeviceRequest(UUID.randomUUID(), tenant.id(), UUID.randomUUID(),
                "erin", "hash", "AAAA-AAAA", "auth-req", SecondDeviceRequest.PENDING, 1, Instant.now(), Instant.now(),
                null);
        assertThat(check(approvalToken(tenant.id(), "bob", CIBA_CLIENT, CIBA_AUDIENCE, Groups.APPROVER), request))
                .isEqualTo(new ApprovalTokens.Refused("the token names another person"));
        assertThat(check(approvalToken("t-" + UUID.randomUUID(), "erin", CIBA_CLIENT, CIBA_AUDIENCE,
                Groups.APPROVER), request)).isEqualTo(new ApprovalTokens.Refused("the token names another tenant"));
        assertThat(check(approvalToken(tenant.id(), "erin", "countersign-decision-page", CIBA_AUDIENCE,
                Groups.APPROVER), request))
                .isEqualTo(new ApprovalTokens.Refused("the token was issued to another client"));
        // Nor one without a tenant, nor one also valid for the executor's API (an exclusive audience).
        Map<String, Object> noTenant = new HashMap<>(Map.of("iss", DevTokens.ISSUER, "sub", "erin", "aud",
                List.of(CIBA_AUDIENCE), "iat", Instant.now().getEpochSecond(), "exp",
                Instant.now().plusSeconds(300).getEpochSecond(), "jti", UUID.randomUUID().toString(), "azp",
                CIBA_CLIENT));
        assertThat(check(TestProperties.tokens().sign(noTenant), request))
                .isEqualTo(new ApprovalTokens.Refused("the token names another tenant"));
        Map<String, Object> twoAudiences = new HashMap<>(noTenant);
        twoAudiences.put("tenant", tenant.id());
        twoAudiences.put("aud", List.of(CIBA_AUDIENCE, Audiences.EXECUTOR));
        assertThat(check(TestProperties.tokens().sign(twoAudiences), request))
                .isEqualTo(new ApprovalTokens.Refused("the token is also valid for another use"));
        // A person's executor token is no approval: it does not verify for the approvals' audience.
        assertThat(check(tenant.bearer("erin", Groups.APPROVER), request))
                .isEqualTo(new ApprovalTokens.Refused("the token did not verify"));
        assertThat(check(erinsApproval(), request)).isInstanceOf(ApprovalTokens.Approver.class);
    }

    private ApprovalTokens.Checked check(String token, SecondDeviceRequest request) {
        return approvalTokens.check(token, request).await().atMost(Duration.ofSeconds(10));
    }

    @Test
    void theDecisionRuleAndTheApprovalPolicyJudgeASecondDeviceApprovalAsAnyOther() throws Exception {
        var proposal = ProposalMother.staged(kafka, tenant, "900.00");
        // dave is no approver and does not own alice's wallet: his approval, however it came, confirms nothing.
        String daves = approvalToken(tenant.id(), "dave", CIBA_CLIENT, CIBA_AUDIENCE, Groups.USER);
        assertThat(approve(requestFor(proposal, "dave"), daves)).isInstanceOf(DecisionOutcome.NotEntitled.class);
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");

        // Two approvals for HIGH: erin's on her device counts as one, bob's over HTTP completes it.
        TenantPolicies.set(tenant.id(), "approvals", "{\"highApprovals\": 2, \"highNeedsOtherApprover\": false}");
        assertThat(approve(requestFor(proposal, "erin"), erinsApproval()))
                .isInstanceOfSatisfying(DecisionOutcome.AwaitingApprovals.class,
                        waiting -> assertThat(waiting.approvers()).containsExactly("erin"));
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
        proposal.decide("confirm", tenant.bearer("bob", Groups.APPROVER)).then().statusCode(200);
        assertThat(Db.status(proposal.actionId)).isEqualTo("executed");
        assertThat(proposal.ledgerRows()).isEqualTo(1);
    }

    @Test
    void aDenialCancelsTheActionInThePersonsName() throws Exception {
        var proposal = ProposalMother.staged(kafka, tenant, "900.00");
        SecondDeviceRequest request = requestFor(proposal, "erin");

        DecisionOutcome outcome = decisions.cancel(DecisionRequest.bySecondDevice(proposal.actionId, tenant.id(),
                dev.countersign.executor.access.Principal.person("erin", true, false), request.notificationId(),
                request.paramsHash(), null)).await().atMost(Duration.ofSeconds(15));

        assertThat(outcome).isInstanceOf(DecisionOutcome.Cancelled.class);
        assertThat(historyOf(proposal.actionId, "cancelled")).isEqualTo("erin via ciba");
    }

    @Test
    void onlyThePeopleTheRuleEntitlesAreAskedOnTheirSecondDeviceForHighActionsAndKindsThePolicyNames()
            throws Exception {
        // erin (an approver) and dave (not one) both choose to be asked on their second device.
        for (String user : List.of("erin", "dave")) {
            String[] groups = "erin".equals(user)
                    ? new String[]{Groups.USER, Groups.APPROVER}
                    : new String[]{Groups.USER};
            given().header("Authorization", "Bearer " + personToken(user, groups)).contentType("application/json")
                    .body("{\"email\":false,\"webhook\":false,\"secondDevice\":true}").put("/api/me/notifications")
                    .then().statusCode(200)
                    .body("secondDevice", org.hamcrest.Matchers.equalTo(true));
        }
        var high = ProposalMother.staged(kafka, tenant, "900.00");
        var low = ProposalMother.staged(kafka, tenant, "9.00");

        String planned = "SELECT string_agg(recipient || ':' || address, ',' ORDER BY recipient) FROM notifications"
                + " WHERE action_id = ? AND channel = 'second_device'";
        dev.countersign.devsupport.testing.Waits.await().atMost(Duration.ofSeconds(15))
                .until(() -> Db.text(planned, high.actionId) != null);
        // Planned in the one transaction that planned every channel of the action: dave's would be there by now.
        assertThat(Db.text(planned, high.actionId)).isEqualTo("erin:erin");
        assertThat(Db.count("SELECT count(*) FROM notifications WHERE action_id = ? AND recipient = 'dave'",
                high.actionId)).isZero();
        // The LOW one is planned in the same way, for nobody on this channel.
        dev.countersign.devsupport.testing.Waits.await().atMost(Duration.ofSeconds(15))
                .until(() -> Db.count("SELECT count(*) FROM notification_requests WHERE action_id = ?",
                        low.actionId) == 0);
        assertThat(Db.text(planned, low.actionId)).isNull();
        // Unless the tenant's policy names its kind: then a LOW one is asked too (at once: no loosening change).
        TenantPolicies.put(tenant.id(), "admin", "second-device", Map.of("kinds", List.of("no.such.kind")))
                .statusCode(400).body("code", org.hamcrest.Matchers.equalTo("validation_failed"));
        TenantPolicies.set(tenant.id(), "second-device", Map.of("kinds", List.of("ledger.transaction.create")));
        var named = ProposalMother.staged(kafka, tenant, "9.50");
        dev.countersign.devsupport.testing.Waits.await().atMost(Duration.ofSeconds(15))
                .until(() -> Db.text(planned, named.actionId) != null);
        assertThat(Db.text(planned, named.actionId)).isEqualTo("erin:erin");
    }

    @Test
    void theDatabaseBindsARequestToItsProposedActionsParametersHash() throws Exception {
        var proposal = ProposalMother.staged(kafka, tenant, "900.00");
        String insert = "INSERT INTO second_device_requests (notification_id, tenant_id, action_id, user_id,"
                + " params_hash, binding_code, auth_req_id, poll_interval, next_poll_at, expires_at) VALUES"
                + " (gen_random_uuid(), '%s', '%s', 'erin', '%s', 'AAAA-AAAA', 'r', 1, now(), now())";
        // Around the application, with its own role and tenant: another hash, another tenant's action.
        Db.refusedAsApplication(tenant.id(), "23514", insert.formatted(tenant.id(), proposal.actionId, "other-hash"));
        String otherTenant = "t-" + UUID.randomUUID();
        Db.refusedAsApplication(otherTenant, "23514",
                insert.formatted(otherTenant, proposal.actionId, proposal.paramsHash()));
        try (var sql = Db.application()) {
            sql.setAutoCommit(false);
            Db.enterTenant(sql, tenant.id());
            sql.createStatement().executeUpdate(insert.formatted(tenant.id(), proposal.actionId,
                    proposal.paramsHash()));
            // What polling may change is its state, never what the request is about.
            assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "UPDATE second_device_requests SET params_hash = 'x'")).hasMessageContaining("permission denied");
            sql.rollback();
        }
        // One row per provider request, and none for an action no longer waiting.
        var second = ProposalMother.staged(kafka, tenant, "901.00");
        try (var sql = Db.application()) {
            sql.setAutoCommit(false);
            Db.enterTenant(sql, tenant.id());
            sql.createStatement().executeUpdate(insert.formatted(tenant.id(), proposal.actionId,
                    proposal.paramsHash()));
            assertThatThrownBy(() -> sql.createStatement().executeUpdate(insert.formatted(tenant.id(),
                    second.actionId, second.paramsHash()))).hasMessageContaining("second_device_requests_auth_req");
            sql.rollback();
        }
        var cancelled = ProposalMother.staged(kafka, tenant, "902.00");
        cancelled.decide("cancel", tenant.bearer("alice", Groups.USER)).then().statusCode(200);
        Db.refusedAsApplication(tenant.id(), "23514",
                insert.formatted(tenant.id(), cancelled.actionId, cancelled.paramsHash()));
        // The agent's reader role sees no request (auth_req_id fetches an approval's token with the client's secret).
        Db.refusedAsReader(tenant.id(), "42501", "SELECT * FROM second_device_requests");
    }

    @Test
    void aRecordedRequestIsShownToItsPersonOnlyAndClaimedByOnePollerAtATime() throws Exception {
        var proposal = ProposalMother.staged(kafka, tenant, "900.00");
        SecondDeviceRequest request = requestFor(proposal, "erin");
        TenantTransactions.Actor actor = new TenantTransactions.Actor(tenant.id(), "system", "ciba");
        transactions.run(actor, sql -> requests.record(sql, request)).await().atMost(Duration.ofSeconds(10));
        // A resend of the same notification records nothing more.
        transactions.run(actor, sql -> requests.record(sql, request)).await().atMost(Duration.ofSeconds(10));

        given().header("Authorization", "Bearer " + tenant.bearer("erin", Groups.APPROVER))
                .get("/api/second-device/requests").then().statusCode(200)
                .body("code", org.hamcrest.Matchers.contains(request.bindingCode()))
                .body("[0].actionId", org.hamcrest.Matchers.equalTo(proposal.actionId.toString()))
                .body("[0].action.paramsHash", org.hamcrest.Matchers.equalTo(proposal.paramsHash()))
                .body("[0].action.headline", org.hamcrest.Matchers.containsString("900.00"));
        // Nobody else sees it, not even bob, an approver of the tenant.
        given().header("Authorization", "Bearer " + tenant.bearer("bob", Groups.APPROVER))
                .get("/api/second-device/requests").then().statusCode(200).body("size()", org.hamcrest.Matchers.is(0));

        // Due one interval after it was recorded; then one poller has it for the lease, another gets nothing.
        dev.countersign.devsupport.testing.Waits.await().atMost(Duration.ofSeconds(5)).until(() -> transactions
                .run(actor, sql -> requests.claim(sql, tenant.id(), request.notificationId(), Duration.ofMinutes(1)))
                .await().atMost(Duration.ofSeconds(5)) != null);
        assertThat(transactions.run(actor, sql -> requests.claim(sql, tenant.id(), request.notificationId(),
                Duration.ofMinutes(1))).await().atMost(Duration.ofSeconds(5))).isNull();
        transactions.run(actor, sql -> requests.later(sql, request, 7)).await().atMost(Duration.ofSeconds(5));
        assertThat(Db.text("SELECT poll_interval FROM second_device_requests WHERE notification_id = ?",
                request.notificationId())).isEqualTo("7");
        assertThat(transactions.run(actor, sql -> requests.end(sql, request, SecondDeviceRequest.EXPIRED, "expired"))
                .await().atMost(Duration.ofSeconds(5))).isTrue();
        assertThat(transactions.run(actor, sql -> requests.end(sql, request, SecondDeviceRequest.APPROVED, "late"))
                .await().atMost(Duration.ofSeconds(5))).isFalse();
        given().header("Authorization", "Bearer " + tenant.bearer("erin", Groups.APPROVER))
                .get("/api/second-device/requests").then().statusCode(200).body("size()", org.hamcrest.Matchers.is(0));
    }

    @Test
    void theDecidersTellEachPersonTheCodeOfTheirOwnPendingRequestOnly() throws Exception {
        var proposal = ProposalMother.staged(kafka, tenant, "900.00");
        SecondDeviceRequest erins = requestFor(proposal, "erin");
        SecondDeviceRequest bobs = new SecondDeviceRequest(UUID.randomUUID(), tenant.id(), proposal.actionId, "bob",
                proposal.paramsHash(), BindingCodes.of(UUID.randomUUID()), "auth-req-" + UUID.randomUUID(),
                SecondDeviceRequest.PENDING, 1, Instant.now().plusSeconds(120), Instant.now(), null);
        TenantTransactions.Actor actor = new TenantTransactions.Actor(tenant.id(), "system", "ciba");
        for (SecondDeviceRequest request : List.of(erins, bobs)) {
            transactions.run(actor, sql -> requests.record(sql, request)).await().atMost(Duration.ofSeconds(10));
        }
        assertThat(erins.bindingCode()).isNotEqualTo(bobs.bindingCode());

        for (var person : Map.of("erin", erins.bindingCode(), "bob", bobs.bindingCode()).entrySet()) {
            given().header("Authorization", "Bearer " + tenant.bearer(person.getKey(), Groups.APPROVER))
                    .get("/api/actions/{id}/deciders", proposal.actionId).then().statusCode(200)
                    .body("secondDeviceCode", org.hamcrest.Matchers.equalTo(person.getValue()));
        }
        // alice, who asked for it, was asked nothing: no code for her.
        given().header("Authorization", "Bearer " + tenant.bearer("alice", Groups.USER))
                .get("/api/actions/{id}/deciders", proposal.actionId).then().statusCode(200)
                .body("secondDeviceCode", org.hamcrest.Matchers.nullValue());
        // An answered request shows no code any more.
        transactions.run(actor, sql -> requests.end(sql, erins, SecondDeviceRequest.DENIED, "denied"))
                .await().atMost(Duration.ofSeconds(5));
        given().header("Authorization", "Bearer " + tenant.bearer("erin", Groups.APPROVER))
                .get("/api/actions/{id}/deciders", proposal.actionId).then().statusCode(200)
                .body("secondDeviceCode", org.hamcrest.Matchers.nullValue());
    }

    @Test
    void theCodeIsShortPlainAndTheSameForTheSameAction() {
        UUID action = UUID.randomUUID();
        assertThat(BindingCodes.of(action)).matches("[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}")
                .matches("^[a-zA-Z0-9-._+/!?#]{1,50}$").isEqualTo(BindingCodes.of(UUID.fromString(action.toString())))
                .isNotEqualTo(BindingCodes.of(UUID.randomUUID()));
    }
}
