package dev.countersign.executor;

import static io.restassured.RestAssured.given;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.Groups;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.DevTokens;
import dev.countersign.devsupport.testing.TestProperties;
import io.restassured.response.ValidatableResponse;

/**
 * Sets a tenant policy as its administrators would: {@code admin} proposes; a change that weakens protection (202,
 * staged) is confirmed by a second administrator, {@code admin-2}. For tests whose subject is not the two-person rule
 * (TwoPersonRuleTest is). Tokens carry the admin group only.
 */
final class TenantPolicies {

    private TenantPolicies() {
    }

    static String adminToken(String tenantId, String user) {
        return TestProperties.tokens().mint(tenantId, user, List.of(Audiences.EXECUTOR), List.of(Groups.ADMIN),
                Duration.ofMinutes(10));
    }

    /**
     * An integration's client-credentials token (subject and {@code azp} {@code bridge}, a configured integration
     * client) that carries the admin group: a service principal, never a person, whatever its groups.
     */
    static String serviceAdminToken(String tenantId) {
        Instant now = Instant.now();
        return TestProperties.tokens().sign(Map.of("iss", DevTokens.ISSUER, "sub", "bridge", "azp", "bridge", "tenant",
                tenantId, "aud", List.of(Audiences.EXECUTOR), "groups", List.of(Groups.ADMIN), "iat",
                now.getEpochSecond(), "exp", now.plusSeconds(300).getEpochSecond(), "jti",
                UUID.randomUUID().toString()));
    }

    /** {@code setting} (its path segment: {@code agent-writes}, ...) set to {@code body}, applied either way. */
    static void set(String tenantId, String setting, Object body) {
        ValidatableResponse answer = put(tenantId, "admin", setting, body);
        int status = answer.extract().statusCode();
        if (status == 202) {
            given().header("Authorization", "Bearer " + adminToken(tenantId, "admin-2"))
                    .post("/api/actions/policy/changes/{id}/confirm", answer.extract().path("id").toString())
                    .then().statusCode(200);
        } else {
            answer.statusCode(200);
        }
    }

    static ValidatableResponse put(String tenantId, String user, String setting, Object body) {
        return given().header("Authorization", "Bearer " + adminToken(tenantId, user)).contentType("application/json")
                .body(body instanceof String text ? text : Json.write(body))
                .put("/api/actions/policy/" + setting).then();
    }
}
