package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.Groups;
import dev.countersign.devsupport.DevTokens;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Who may decide, known ahead (issue 44): the executor keeps each tenant's people as their tokens showed them
 * ({@code tenant_members}), and answers who may decide an action from them by the decision rule and the tenant's
 * approval policy.
 */
@QuarkusTest
@ExecutorTestResources
class MembersTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    /** An executor token of {@code user} with only {@code groups}, a username and an address, verified or not. */
    private String token(String user, boolean emailVerified, String... groups) {
        return token(user, user + ".name", Instant.now(), emailVerified, groups);
    }

    /** The same, issued at {@code issuedAt} (valid for ten minutes from then), with {@code username}. */
    private String token(String user, String username, Instant issuedAt, boolean emailVerified, String... groups) {
        Map<String, Object> claims = new HashMap<>(Map.of("iss", DevTokens.ISSUER, "sub", user, "tenant", tenant.id(),
                "aud", List.of(Audiences.EXECUTOR), "groups", List.of(groups), "iat", issuedAt.getEpochSecond(),
                "exp", issuedAt.plusSeconds(600).getEpochSecond(), "jti", UUID.randomUUID().toString()));
        claims.put("preferred_username", username);
        claims.put("email", user + "@" + tenant.id() + ".example");
        claims.put("email_verified", emailVerified);
        return TestProperties.tokens().sign(claims);
    }

    private String member(String column, String user) throws SQLException {
        return Db.text("SELECT " + column + " FROM tenant_members WHERE tenant_id = ? AND user_id = ?", tenant.id(),
                user);
    }

    /** A member written as the owner (a sighting {@code ago} in the past), around the application. */
    private void seen(String tenantId, String user, boolean approver, Duration ago) throws SQLException {
        try (var owner = Db.owner();
                var insert = owner.prepareStatement("INSERT INTO tenant_members (tenant_id,"
                        + " user_id, approver, admin, seen_at) VALUES (?, ?, ?, false, now() - ?::interval)")) {
            insert.setString(1, tenantId);
            insert.setString(2, user);
            insert.setBoolean(3, approver);
            insert.setString(4, ago.toSeconds() + " seconds");
            insert.executeUpdate();
        }
    }

    @Test
    void aPersonsRequestRecordsTheirGroupsUsernameAndVerifiedAddress() throws Exception {
        given().header("Authorization", "Bearer " + token("bob", true, Groups.USER, Groups.APPROVER))
                .get("/api/actions").then().statusCode(200);
        given().header("Authorization", "Bearer " + token("dave", false, Groups.USER))
                .get("/api/actions").then().statusCode(200);

        // Recorded before the answer (the first request of a person waits for it).
        assertThat(member("approver", "bob")).isEqualTo("t");
        assertThat(member("admin", "bob")).isEqualTo("f");
        assertThat(member("username", "bob")).isEqualTo("bob.name");
        assertThat(member("email", "bob")).isEqualTo("bob@" + tenant.id() + ".example");
        // An address the identity provider did not verify could be anyone's: not kept.
        assertThat(member("email", "dave")).isNull();
        assertThat(member("approver", "dave")).isEqualTo("f");
    }

    @Test
    void aNewerTokenWinsOverAnOlderOneWhicheverComesLast() throws Exception {
        Instant now = Instant.now();
        given().header("Authorization", "Bearer " + token("bob", "bob.name", now.minusSeconds(60), true, Groups.USER))
                .get("/api/actions").then().statusCode(200);
        assertThat(member("approver", "bob")).isEqualTo("f");

        // Demoted later at the identity provider, but a token issued before that comes in now: it changes nothing.
        given().header("Authorization", "Bearer " + token("bob", "bob.name", now.minusSeconds(120), true, Groups.USER,
                Groups.APPROVER)).get("/api/actions").then().statusCode(200);
        assertThat(member("approver", "bob")).isEqualTo("f");

        given().header("Authorization", "Bearer " + token("bob", "bob.name", now, true, Groups.USER, Groups.APPROVER))
                .get("/api/actions").then().statusCode(200);
        assertThat(member("approver", "bob")).isEqualTo("t");
    }

    @Test
    void aClaimTheTableWouldRefuseIsLeftOutAndThePersonStillRecorded() throws Exception {
        given().header("Authorization", "Bearer " + token("bob", "bob\u2028name", Instant.now(), true, Groups.USER))
                .get("/api/actions").then().statusCode(200);

        assertThat(member("user_id", "bob")).isEqualTo("bob");
        assertThat(member("username", "bob")).isNull();
        assertThat(member("email", "bob")).isEqualTo("bob@" + tenant.id() + ".example");
    }

    @Test
    void theDecidersAreThoseTheRuleAndThePolicyLetConfirmAmongRecentMembers() throws Exception {
        // alice owns the wallet and asks; bob approves; dave is a plain user; erin approves but was seen long ago;
        // carol approves in another tenant.
        seen(tenant.id(), "alice", true, Duration.ofMinutes(1));
        seen(tenant.id(), "bob", true, Duration.ofMinutes(1));
        seen(tenant.id(), "dave", false, Duration.ofMinutes(1));
        seen(tenant.id(), "erin", true, Duration.ofDays(31));
        seen("t-" + UUID.randomUUID(), "carol", true, Duration.ofMinutes(1));
        String bob = tenant.bearer("bob", Groups.USER, Groups.APPROVER);

        var low = ProposalMother.staged(kafka, tenant, "12.50");
        given().header("Authorization", "Bearer " + bob).get("/api/actions/{id}/deciders", low.actionId)
                .then().statusCode(200).body("deciders.userId", contains("alice", "bob"));

        TenantPolicies.set(tenant.id(), "approvals", "{\"highApprovals\":1,\"highNeedsOtherApprover\":true}");
        var high = ProposalMother.staged(kafka, tenant, "900.00");
        given().header("Authorization", "Bearer " + bob).get("/api/actions/{id}/deciders", high.actionId)
                .then().statusCode(200).body("deciders.userId", contains("bob"));
    }

    @Test
    void whoMayNotReadAnActionIsNotToldWhoDecidesIt() throws Exception {
        var low = ProposalMother.staged(kafka, tenant, "12.50");

        given().header("Authorization", "Bearer " + tenant.bearer("dave", Groups.USER))
                .get("/api/actions/{id}/deciders", low.actionId)
                .then().statusCode(404).body("code", equalTo("action_not_found"));
        given().header("Authorization", "Bearer " + TestProperties.executorBearer("t-" + UUID.randomUUID(), "alice"))
                .get("/api/actions/{id}/deciders", low.actionId)
                .then().statusCode(404).body("code", equalTo("action_not_found"));
    }

    @Test
    void aPersonChoosesTheirOwnChannelsAndSigningInAgainKeepsTheChoice() throws Exception {
        String bob = token("bob", true, Groups.USER, Groups.APPROVER);

        given().header("Authorization", "Bearer " + bob).contentType("application/json")
                .body("{\"email\":false,\"webhook\":true}").put("/api/me/notifications")
                .then().statusCode(200).body("email", equalTo(false)).body("webhook", equalTo(true))
                .body("address", equalTo("bob@" + tenant.id() + ".example"));
        given().header("Authorization", "Bearer " + bob).get("/api/me/notifications")
                .then().statusCode(200).body("email", equalTo(false)).body("webhook", equalTo(true));
        assertThat(member("notify_email", "bob")).isEqualTo("f");

        given().header("Authorization", "Bearer " + bob).contentType("application/json").body("{\"email\":true}")
                .put("/api/me/notifications")
                .then().statusCode(400).contentType("application/problem+json")
                .body("code", equalTo("validation_failed"));
        assertThat(member("notify_email", "bob")).isEqualTo("f");
    }

    @Test
    void aServicePrincipalHasNoChoiceAndIsNoMember() throws Exception {
        Instant now = Instant.now();
        String service = TestProperties.tokens().sign(Map.of("iss", DevTokens.ISSUER, "sub",
                "service-account-bridge", "azp", "bridge", "tenant", tenant.id(), "aud", List.of(Audiences.EXECUTOR),
                "groups", List.of(Groups.USER, Groups.APPROVER), "iat", now.getEpochSecond(), "exp",
                now.plusSeconds(600).getEpochSecond(), "jti", UUID.randomUUID().toString()));

        given().header("Authorization", "Bearer " + service).get("/api/actions").then().statusCode(200);
        given().header("Authorization", "Bearer " + service).get("/api/me/notifications")
                .then().statusCode(403).body("code", equalTo("forbidden"));
        // A person's request is recorded before its answer: a service principal's would be there by now.
        assertThat(member("user_id", "service-account-bridge")).isNull();
    }

    @Test
    void theTableKeepsOnlyTenantRowsAndValidAddressesWhateverTheApplicationSends() throws Exception {
        Db.refusedAsApplication(tenant.id(), "42501", "INSERT INTO tenant_members (tenant_id, user_id, approver,"
                + " admin) VALUES ('t-" + UUID.randomUUID() + "', 'mallory', true, true)");
        Db.refusedAsApplication(tenant.id(), "23514", "INSERT INTO tenant_members (tenant_id, user_id, email,"
                + " approver, admin) VALUES ('" + tenant.id() + "', 'mallory', 'two@at@example.test', false, false)");
        Db.refusedAsApplication(tenant.id(), "42501", "DELETE FROM tenant_members");
    }
}
