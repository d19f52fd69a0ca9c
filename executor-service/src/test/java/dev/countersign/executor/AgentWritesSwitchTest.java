package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Topics;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/** The per-tenant kill switch: admin-only, audited, and a disabled tenant's proposals are rejected with a reason. */
@QuarkusTest
@ExecutorTestResources
class AgentWritesSwitchTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;
    private String admin;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
        admin = tenant.executorBearer("alice");
    }

    /** As the tenant's administrators: turning agent writes on takes a second one (TwoPersonRuleTest). */
    private void switchTo(String mode) {
        TenantPolicies.set(tenant.id(), "agent-writes", "{\"mode\":\"" + mode + "\"}");
        given().header("Authorization", "Bearer " + admin).get("/api/actions/policy/agent-writes")
                .then().statusCode(200).body("mode", equalTo(mode));
    }

    /** The deployment's default (staged_only in the test profile), also after another policy of the tenant is set. */
    @Test
    void aTenantStartsWithTheDeploymentsDefault() {
        given().header("Authorization", "Bearer " + admin).get("/api/actions/policy/agent-writes")
                .then().statusCode(200).body("mode", equalTo("staged_only"));
        TenantPolicies.set(tenant.id(), "approvals", "{\"highApprovals\": 2, \"highNeedsOtherApprover\": false}");
        given().header("Authorization", "Bearer " + admin).get("/api/actions/policy/agent-writes")
                .then().statusCode(200).body("mode", equalTo("staged_only"));
    }

    @Test
    void onlyAdminsSwitch() {
        given().contentType("application/json")
                .header("Authorization", "Bearer " + TestProperties.executorBearerWithoutApproval(tenant.id(), "bob"))
                .body("{\"mode\":\"disabled\"}").put("/api/actions/policy/agent-writes")
                .then().statusCode(403).contentType("application/problem+json").body("code", equalTo("forbidden"));
        given().contentType("application/json").header("Authorization", "Bearer " + admin)
                .body("{\"mode\":\"off\"}").put("/api/actions/policy/agent-writes")
                .then().statusCode(400).contentType("application/problem+json");
    }

    @Test
    void aDisabledTenantsProposalsAreRejectedWithAReasonAndTheSwitchIsAudited() throws Exception {
        switchTo("disabled");
        var refused = new ProposalMother(tenant, "12.50");

        refused.send(kafka);

        var outcome = kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(refused.actionId.toString()));
        assertThat(outcome).singleElement().asString().contains("ActionRejected").contains("agent_writes_disabled");
        assertThat(Db.status(refused.actionId)).isNull();

        switchTo("enabled");
        var accepted = new ProposalMother(tenant, "12.50");
        accepted.send(kafka);
        Db.awaitStatus(accepted.actionId, "executed"); // enabled: a LOW expense applies on arrival
        // Switched off by one administrator; on again only with a second one (TwoPersonRuleTest).
        assertThat(Db.text("SELECT string_agg(changed_by || ':' || agent_writes, ',' ORDER BY changed_by)"
                + " FROM tenant_policy_history WHERE tenant_id = ?", tenant.id()))
                .isEqualTo("admin:disabled,admin-2:enabled");
    }

    @Test
    void aPolicyCannotBeDeletedBehindTheAuditsBack() throws Exception {
        switchTo("disabled");

        try (var sql = Db.owner()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "DELETE FROM tenant_policies WHERE tenant_id = '" + tenant.id() + "'"))
                    .isInstanceOf(java.sql.SQLException.class).hasMessageContaining("instead of deleting");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "DELETE FROM tenant_policy_history WHERE tenant_id = '" + tenant.id() + "'"))
                    .isInstanceOf(java.sql.SQLException.class).hasMessageContaining("append-only");
        }
    }

    @Test
    void anotherTenantIsNotAffected() throws Exception {
        switchTo("disabled");
        String other = "t-" + UUID.randomUUID();
        UUID otherWallet;
        try (var owner = Db.owner()) {
            otherWallet = DemoData.createWallet(owner, other, "carol", "Operating", "USD");
        }
        var proposal = new ProposalMother(other, otherWallet, "3.00");

        proposal.send(kafka);

        Db.awaitStatus(proposal.actionId, "proposed");
    }
}
