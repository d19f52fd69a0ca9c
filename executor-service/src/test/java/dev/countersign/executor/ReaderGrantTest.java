package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Audiences;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.TestProperties;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * {@code POST /api/reader-grants}: the executor mints a reader grant only from a live agent token of the person and
 * tenant it names, and the grant it answers shows the agent's role that tenant, no other, for no longer than the token.
 */
@QuarkusTest
@ExecutorTestResources
class ReaderGrantTest {

    private static Map<String, String> request(String tenant, String user, String evidence) {
        return Map.of("tenantId", tenant, "userId", user, "evidence", evidence);
    }

    @Test
    void aLiveAgentTokenOfThePersonMintsAGrantForItsTenantOnly() throws Exception {
        String tenant = "t-" + UUID.randomUUID();
        String other = "t-" + UUID.randomUUID();
        try (var owner = Db.owner()) {
            DemoData.createWallet(owner, tenant, "alice", "Checking", "EUR");
            DemoData.createWallet(owner, other, "bob", "Checking", "EUR");
        }
        String token = TestProperties.tokens().mint(tenant, "alice", List.of(Audiences.AGENT), List.of(),
                Duration.ofMinutes(5));
        var grant = given().contentType(ContentType.JSON).body(request(tenant, "alice", token))
                .when().post("/api/reader-grants")
                .then().statusCode(200).extract().jsonPath();
        Instant expiresAt = Instant.parse(grant.getString("expiresAt"));
        assertThat(expiresAt).isBefore(Instant.now().plus(Duration.ofMinutes(5).plusSeconds(5)));
        try (var reader = Db.reader()) {
            reader.setAutoCommit(false);
            Db.useGrant(reader, grant.getString("secret"));
            assertThat(Db.count(reader, "SELECT count(*) FROM wallets WHERE tenant_id = ?", tenant)).isOne();
            assertThat(Db.count(reader, "SELECT count(*) FROM wallets WHERE tenant_id = ?", other)).isZero();
            reader.rollback();
        }
        try (var owner = Db.owner()) {
            assertThat(Db.count(owner, "SELECT count(*) FROM reader_grants WHERE tenant_id = ? AND user_id = 'alice'"
                    + " AND expires_at <= now() + interval '5 minutes 5 seconds'", tenant)).isOne();
        }
    }

    @Test
    void aLongLivedTokenGetsAGrantOfTheConfiguredLifetimeAtMost() {
        String tenant = "t-" + UUID.randomUUID();
        String token = TestProperties.tokens().mint(tenant, "alice", List.of(Audiences.AGENT), List.of(),
                Duration.ofHours(1));
        String expiresAt = given().contentType(ContentType.JSON).body(request(tenant, "alice", token))
                .when().post("/api/reader-grants")
                .then().statusCode(200).extract().path("expiresAt");
        assertThat(Instant.parse(expiresAt)).isBefore(Instant.now().plus(Duration.ofMinutes(16)));
    }

    @Test
    void noGrantWithoutALiveAgentTokenOfThatPersonOfThatTenant() {
        String tenant = "t-" + UUID.randomUUID();
        var tokens = TestProperties.tokens();
        var refused = Map.of(
                "another tenant's token", request(tenant, "alice",
                        tokens.mint("t-other", "alice", List.of(Audiences.AGENT), List.of(), Duration.ofMinutes(5))),
                "another person's token", request(tenant, "alice",
                        tokens.mint(tenant, "bob", List.of(Audiences.AGENT), List.of(), Duration.ofMinutes(5))),
                "an executor-audience token", request(tenant, "alice",
                        tokens.mint(tenant, "alice", List.of(Audiences.EXECUTOR), List.of(), Duration.ofMinutes(5))),
                "a token that ended within the clock skew", request(tenant, "alice",
                        tokens.mint(tenant, "alice", List.of(Audiences.AGENT), List.of(), Duration.ofSeconds(-10))),
                "an expired token", request(tenant, "alice",
                        tokens.mint(tenant, "alice", List.of(Audiences.AGENT), List.of(), Duration.ofSeconds(-120))),
                "no token", request(tenant, "alice", ""));
        refused.forEach((what, body) -> given().contentType(ContentType.JSON).body(body)
                .when().post("/api/reader-grants")
                .then().statusCode(401).body("code", equalTo("unauthenticated")));
        given().contentType(ContentType.JSON)
                .body(request(tenant, "service:ticket-bridge",
                        tokens.mintService(tenant, "ticket-bridge", Audiences.INTEGRATION, Duration.ofMinutes(5))))
                .when().post("/api/reader-grants")
                .then().statusCode(400).body("code", equalTo("validation_failed"));
    }
}
