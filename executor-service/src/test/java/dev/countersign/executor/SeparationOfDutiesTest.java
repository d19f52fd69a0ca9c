package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;

import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.testing.Race;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/** A tenant's approval rules for HIGH actions: another approver than the requester, and k of them. */
@QuarkusTest
@ExecutorTestResources
class SeparationOfDutiesTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    private String as(String user) {
        return tenant.executorBearer(user);
    }

    private void policy(int approvals, boolean needsOther) {
        TenantPolicies.set(tenant.id(), "approvals",
                "{\"highApprovals\":" + approvals + ",\"highNeedsOtherApprover\":" + needsOther + "}");
    }

    private ProposalMother staged(String amount) throws Exception {
        return ProposalMother.staged(kafka, tenant, amount);
    }

    private Response confirm(ProposalMother proposal, String user) {
        return proposal.decide("confirm", as(user));
    }

    private int ledgerRows(ProposalMother proposal) throws Exception {
        return proposal.ledgerRows();
    }

    @Test
    void aHighActionNeedsTwoApproversOtherThanTheRequester() throws Exception {
        policy(2, true);
        var high = staged("900.00");

        confirm(high, "alice").then().statusCode(403).contentType("application/problem+json")
                .body("code", equalTo("approver_not_allowed"));
        confirm(high, "bob").then().statusCode(202).body("approvers", contains("bob")).body("required", equalTo(2))
                .body("action.status", equalTo("proposed"));
        confirm(high, "bob").then().statusCode(202).body("approvers", contains("bob"));
        given().header("Authorization", "Bearer " + as("alice")).get("/api/actions/{id}/approvals", high.actionId)
                .then().statusCode(200).body("$", contains("bob"));
        assertThat(ledgerRows(high)).isZero();

        confirm(high, "carol").then().statusCode(200).body("status", equalTo("executed"))
                .body("confirmedBy", equalTo("carol"));

        assertThat(ledgerRows(high)).isEqualTo(1);
    }

    @Test
    void lowActionsAndTenantsWithoutAPolicyNeedOneConfirmation() throws Exception {
        var highWithoutPolicy = staged("900.00");
        confirm(highWithoutPolicy, "alice").then().statusCode(200);

        policy(2, true);
        var low = staged("12.50");
        confirm(low, "alice").then().statusCode(200).body("status", equalTo("executed"));
    }

    @Test
    void twoLastApprovalsAtOnceExecuteOnce() throws Exception {
        policy(2, false);
        var high = staged("900.00");

        List<Response> answers = Race.together(List.of(() -> confirm(high, "dave"), () -> confirm(high, "erin")));

        assertThat(answers).extracting(Response::statusCode).containsExactlyInAnyOrder(200, 202);
        assertThat(ledgerRows(high)).isEqualTo(1);
    }

    @Test
    void aHeldActionCannotSlipThroughABatch() throws Exception {
        policy(2, false);
        var high = staged("900.00");

        given().contentType("application/json").header("Authorization", "Bearer " + as("bob"))
                .body("{\"items\":[{\"actionId\":\"" + high.actionId + "\",\"paramsHash\":\"" + high.paramsHash()
                        + "\"}]}")
                .post("/api/actions/confirm-batch").then().statusCode(409).body("code", equalTo("batch_refused"));

        assertThat(ledgerRows(high)).isZero();
    }

    @Test
    void onlyAdminsSetTheRules() {
        given().contentType("application/json")
                .header("Authorization", "Bearer " + TestProperties.executorBearerWithoutApproval(tenant.id(), "bob"))
                .body("{\"highApprovals\":3,\"highNeedsOtherApprover\":true}").put("/api/actions/policy/approvals")
                .then().statusCode(403);
        given().contentType("application/json").header("Authorization", "Bearer " + as("admin"))
                .body("{\"highApprovals\":11,\"highNeedsOtherApprover\":true}").put("/api/actions/policy/approvals")
                .then().statusCode(400);
        given().header("Authorization", "Bearer " + as("alice")).get("/api/actions/policy/approvals")
                .then().statusCode(200).body("highApprovals", equalTo(1));
    }
}
