package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Groups;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.policy.PolicyAdministrators;
import dev.countersign.executor.policy.TenantPolicyResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/**
 * The policy endpoints' requests: who may change a policy is decided before the body is read (someone who may not
 * learns nothing about a valid body, and a bad body from them is 403, not 400); an administrator's bad body is answered
 * field by field by the records' constraints, and nothing changes.
 */
@QuarkusTest
@ExecutorTestResources
class PolicyRequestsTest {

    private static final Map<String, String> INVALID_BODIES = Map.of(
            "agent-writes", "{}",
            "approvals", "{\"highApprovals\": 0}",
            "tiers", "{\"highImpactThreshold\": -1}",
            "external-sends", "{}",
            "auto-apply-budget", "{\"turnCount\": -1}");

    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    private ValidatableResponse put(String token, String setting, String body) {
        return given().header("Authorization", "Bearer " + token).contentType("application/json").body(body)
                .put("/api/actions/policy/" + setting).then().log().ifValidationFails();
    }

    @Test
    void whoMayNotChangeAPolicyIsRefusedBeforeTheBodyIsRead() {
        String approver = tenant.bearer("dave", Groups.USER, Groups.APPROVER);
        String service = TenantPolicies.serviceAdminToken(tenant.id());
        INVALID_BODIES.forEach((setting, body) -> {
            put(approver, setting, body).statusCode(403).body("code", equalTo("forbidden"))
                    .body("detail", containsString("'admin' role"));
            put(service, setting, body).statusCode(403).body("code", equalTo("forbidden"))
                    .body("detail", containsString("service principal"));
            put(approver, setting, "not json").statusCode(403);
        });
        given().header("Authorization", "Bearer " + approver).get("/api/actions/policy/changes").then()
                .statusCode(403);
    }

    /**
     * Every endpoint that changes or decides a policy, or lists the staged changes, is bound to the administrator
     * filter: the reads are the only ones open, so a new method without the binding fails here.
     */
    @Test
    void everyPolicyMethodButTheReadsIsForAdministratorsWhoArePersons() {
        List<String> open = new ArrayList<>();
        for (Method method : TenantPolicyResource.class.getDeclaredMethods()) {
            boolean endpoint = method.isAnnotationPresent(jakarta.ws.rs.Path.class);
            if (endpoint && !method.isAnnotationPresent(PolicyAdministrators.Only.class)) {
                open.add(method.getName());
            }
        }
        assertThat(open).containsExactlyInAnyOrder("agentWrites", "approvals", "tiers", "externalSends",
                "autoApplyBudget", "mcpAutoApply", "webhookOrigins", "secondDevice");
    }

    @Test
    void theBoundsThemselvesAreAccepted() {
        String admin = TenantPolicies.adminToken(tenant.id(), "alice");
        put(admin, "approvals", "{\"highApprovals\": 10, \"highNeedsOtherApprover\": true}").statusCode(200);
        put(admin, "tiers", "{\"highImpactThreshold\": 0.01}").statusCode(200);
        put(admin, "tiers", "{\"highImpactThreshold\": \"1E+3\"}").statusCode(202);
        put(admin, "tiers", "{\"highImpactThreshold\": 999999999999.99}").statusCode(202);
        put(admin, "auto-apply-budget", Json.write(Map.of("turnCount", 0, "turnAmount", "0.00", "userDayCount", 0,
                "userDayAmount", "0", "tenantDayCount", 0, "tenantDayAmount", "0"))).statusCode(200);
        put(admin, "auto-apply-budget", Json.write(Map.of("turnCount", 100_000, "turnAmount", "1000000000",
                "userDayCount", 100_000, "userDayAmount", "1000000000.00", "tenantDayCount", 100_000,
                "tenantDayAmount", "1000000000"))).statusCode(202);
    }

    @Test
    void anAdministratorsBadBodyIsAnsweredFieldByFieldAndChangesNothing() {
        String admin = TenantPolicies.adminToken(tenant.id(), "alice");
        put(admin, "agent-writes", "{}").statusCode(400).body("code", equalTo("validation_failed"))
                .body("violations.field", contains("mode"));
        put(admin, "approvals", "{\"highApprovals\": 11, \"highNeedsOtherApprover\": true}").statusCode(400)
                .body("violations.field", contains("highApprovals"))
                .body("violations.message", contains("must be from 1 to 10"));
        for (String threshold : List.of("0", "-1", "1.001", "1000000000000")) {
            put(admin, "tiers", "{\"highImpactThreshold\": " + threshold + "}").statusCode(400)
                    .body("violations.field", contains("highImpactThreshold"));
        }
        put(admin, "external-sends", "{\"enabled\": null}").statusCode(400)
                .body("violations.field", contains("enabled"));
        put(admin, "tiers", "null").statusCode(400).body("violations.field", contains("body"));

        Map<String, Object> budget = new LinkedHashMap<>(Map.of("turnCount", 100_001, "turnAmount", "1.005",
                "userDayCount", 1, "userDayAmount", "1000000000.01", "tenantDayCount", 1));
        put(admin, "auto-apply-budget", Json.write(budget)).statusCode(400)
                .body("violations.field",
                        contains("tenantDayAmount", "turnAmount", "turnCount", "userDayAmount"))
                .body("violations.message", not(contains(containsString("{"))));

        given().header("Authorization", "Bearer " + admin).get("/api/actions/policy/tiers").then().statusCode(200)
                .body("highImpactThreshold", equalTo(500.0f));
        given().header("Authorization", "Bearer " + admin).get("/api/actions/policy/changes").then().statusCode(200)
                .body("size()", equalTo(0));
    }
}
