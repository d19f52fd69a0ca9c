package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Groups;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/**
 * Two persons for loosening (docs/security/authorization.md): a change of a tenant policy that weakens protection is
 * staged (202) and applies only when another administrator confirms it; one that tightens applies at once. Before, one
 * administrator disarmed every gate alone. Tokens carry the admin group only, or the groups each case names.
 */
@QuarkusTest
@ExecutorTestResources
class TwoPersonRuleTest {

    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    private ValidatableResponse put(String user, String setting, Object body) {
        return TenantPolicies.put(tenant.id(), user, setting, body);
    }

    private ValidatableResponse decide(String user, String change, String decision) {
        return given().header("Authorization", "Bearer " + TenantPolicies.adminToken(tenant.id(), user))
                .post("/api/actions/policy/changes/{id}/" + decision, change).then().log().ifValidationFails();
    }

    private ValidatableResponse read(String setting) {
        return given().header("Authorization", "Bearer " + TenantPolicies.adminToken(tenant.id(), "alice"))
                .get("/api/actions/policy/" + setting).then().statusCode(200);
    }

    private String staged(String user, String setting, Object body) {
        return put(user, setting, body).statusCode(202).body("status", equalTo("pending"))
                .body("setting", equalTo(setting)).body("proposedBy", equalTo(user)).extract().path("id");
    }

    @Test
    void turningAgentWritesOnWaitsForASecondAdministratorAndItsProposerCannotConfirmIt() {
        String change = staged("alice", "agent-writes", Map.of("mode", "enabled"));
        read("agent-writes").body("mode", equalTo("staged_only"));
        given().header("Authorization", "Bearer " + TenantPolicies.adminToken(tenant.id(), "bob"))
                .get("/api/actions/policy/changes").then().statusCode(200).body("id", equalTo(List.of(change)));

        decide("alice", change, "confirm").statusCode(403).body("code", equalTo("second_admin_required"));
        read("agent-writes").body("mode", equalTo("staged_only"));

        decide("bob", change, "confirm").statusCode(200).body("status", equalTo("applied"))
                .body("decidedBy", equalTo("bob"));
        read("agent-writes").body("mode", equalTo("enabled")).body("updatedBy", equalTo("bob"));
        decide("bob", change, "confirm").statusCode(409).body("code", equalTo("invalid_state_transition"));
    }

    /** Each loosening is staged; each tightening (and keeping a value) applies at once. */
    @Test
    void everyChangeThatWeakensProtectionIsStagedAndEveryOtherAppliesAtOnce() {
        put("alice", "external-sends", Map.of("enabled", false)).statusCode(200);
        put("alice", "agent-writes", Map.of("mode", "disabled")).statusCode(200);
        put("alice", "tiers", Map.of("highImpactThreshold", "100.00")).statusCode(200);
        put("alice", "approvals", Map.of("highApprovals", 2, "highNeedsOtherApprover", true)).statusCode(200);
        put("alice", "auto-apply-budget", budget(2, "100.00")).statusCode(200);
        put("alice", "tiers", Map.of("highImpactThreshold", "100")).statusCode(200);

        staged("alice", "external-sends", Map.of("enabled", true));
        staged("alice", "agent-writes", Map.of("mode", "staged_only"));
        staged("alice", "tiers", Map.of("highImpactThreshold", "100.01"));
        staged("alice", "approvals", Map.of("highApprovals", 1, "highNeedsOtherApprover", true));
        // A newer proposal of the same setting supersedes the older one.
        staged("alice", "approvals", Map.of("highApprovals", 2, "highNeedsOtherApprover", false));
        staged("alice", "auto-apply-budget", budget(2, "100.01"));

        read("external-sends").body("enabled", equalTo(false));
        read("tiers").body("highImpactThreshold", equalTo(100.0f));
        read("approvals").body("highApprovals", equalTo(2)).body("highNeedsOtherApprover", equalTo(true));
        given().header("Authorization", "Bearer " + TenantPolicies.adminToken(tenant.id(), "bob"))
                .get("/api/actions/policy/changes").then().statusCode(200).body("size()", equalTo(5));
    }

    private static Map<String, Object> budget(int count, String amount) {
        return Map.of("turnCount", count, "turnAmount", amount, "userDayCount", count, "userDayAmount", amount,
                "tenantDayCount", count, "tenantDayAmount", amount);
    }

    @Test
    void aChangeProposedAgainstAValueSinceChangedIsRefusedAndItsProposerMayWithdrawOne() {
        String raise = staged("alice", "tiers", Map.of("highImpactThreshold", "900.00"));
        put("carol", "tiers", Map.of("highImpactThreshold", "400.00")).statusCode(200);
        decide("bob", raise, "confirm").statusCode(409).body("code", equalTo("policy_changed"));
        read("tiers").body("highImpactThreshold", equalTo(400.0f));

        put("alice", "approvals", Map.of("highApprovals", 3, "highNeedsOtherApprover", true)).statusCode(200);
        String fewer = staged("alice", "approvals", Map.of("highApprovals", 1, "highNeedsOtherApprover", true));
        decide("alice", fewer, "reject").statusCode(200).body("status", equalTo("rejected"))
                .body("decidedBy", equalTo("alice"));
        decide("bob", fewer, "confirm").statusCode(409).body("code", equalTo("invalid_state_transition"));
        read("approvals").body("highApprovals", equalTo(3));
    }

    /** Who may decide a staged change: an administrator who is a person, never an approver or a service. */
    @Test
    void onlyAnotherAdministratorWhoIsAPersonConfirms() {
        String change = staged("alice", "agent-writes", Map.of("mode", "enabled"));
        for (String token : List.of(
                tenant.bearer("dave", Groups.USER, Groups.APPROVER),
                TenantPolicies.serviceAdminToken(tenant.id()))) {
            given().header("Authorization", "Bearer " + token).post("/api/actions/policy/changes/{id}/confirm", change)
                    .then().statusCode(403).body("code", equalTo("forbidden"));
        }
        decide("bob", UUID.randomUUID().toString(), "confirm").statusCode(404);
        read("agent-writes").body("mode", equalTo("staged_only"));
    }

    /**
     * A tenant with one administrator: an operator's break-glass (owner-only SQL) exempts one staged change, which its
     * proposer may then confirm; neither service's role may call it.
     */
    @Test
    void aSingleAdministratorConfirmsOnlyAfterAnOperatorsBreakGlass() throws Exception {
        String change = staged("alice", "tiers", Map.of("highImpactThreshold", "2000.00"));
        String breakGlass = "SELECT break_glass_policy_change('%s', 'ops-oncall', 'globex has one admin, INC-7')"
                .formatted(change);
        for (var role : List.of(Db.application(), Db.reader())) {
            try (role) {
                assertThatThrownBy(() -> role.createStatement().executeQuery(breakGlass))
                        .hasMessageContaining("permission denied");
            }
        }
        assertThat(Db.text(breakGlass)).isEqualTo("t");

        decide("alice", change, "confirm").statusCode(200).body("status", equalTo("applied"))
                .body("breakGlassBy", equalTo("operator:ops-oncall (countersign_owner)"));
        read("tiers").body("highImpactThreshold", equalTo(2000.0f));
    }

    /** The database's backstop, around the application: the proposer never applies a change without an exemption. */
    @Test
    void theDatabaseRefusesAChangeAppliedByItsProposerOrRewritten() throws Exception {
        String change = staged("alice", "agent-writes", Map.of("mode", "enabled"));
        Db.refusedAsApplication(tenant.id(), "23514",
                "UPDATE policy_changes SET status = 'applied', decided_by = 'alice' WHERE id = '%s'".formatted(change),
                "UPDATE policy_changes SET status = 'applied' WHERE id = '%s'".formatted(change));
        Db.refusedAsApplication(tenant.id(), "42501",
                "UPDATE policy_changes SET break_glass_by = 'me' WHERE id = '%s'".formatted(change),
                "UPDATE policy_changes SET value = '{\"mode\":\"enabled\"}' WHERE id = '%s'".formatted(change),
                "DELETE FROM policy_changes WHERE id = '%s'".formatted(change));
        read("agent-writes").body("mode", equalTo("staged_only")).body("updatedBy", nullValue());
    }
}
