package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;

import dev.countersign.contracts.Groups;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.FreePorts;
import dev.countersign.devsupport.external.WebhookReceiver;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The people who may decide an action are told at the webhook each named (issue 44, docs/approvals.md): signed as
 * Standard Webhooks say, verified here by that specification's library as a team's receiver would; only to an origin on
 * the tenant's allow-list (any other is refused and recorded); the same id on a resend; and a slow or unreachable
 * webhook delays no decision.
 */
@QuarkusTest
@ExecutorTestResources
class WebhookNotificationsTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private WebhookReceiver receiver;
    private WebhookReceiver elsewhere;
    private TestTenant tenant;

    @BeforeEach
    void freshTenantWithItsPeopleAndAllowList() throws Exception {
        receiver = WebhookReceiver.start();
        elsewhere = WebhookReceiver.start();
        tenant = TestTenant.withCheckingWallet();
        // alice owns the wallet and asks; bob and carol approve, at the allowed receiver (Countersign's JSON, Slack's);
        // erin approves, at a receiver whose origin no administrator named; nobody has an e-mail address here.
        member("alice", false, null, "standard");
        member("bob", true, receiver.origin() + "/bob?team=1", "standard");
        member("carol", true, receiver.origin() + "/services/T1/B2/carol", "slack");
        member("erin", true, elsewhere.origin() + "/erin", "standard");
        TenantPolicies.set(tenant.id(), "webhook-origins", Map.of("origins", List.of(receiver.origin())));
    }

    @AfterEach
    void stopTheReceivers() {
        receiver.close();
        elsewhere.close();
    }

    private void member(String user, boolean approver, String webhookUrl, String format) throws SQLException {
        try (var owner = Db.owner();
                var insert = owner.prepareStatement("INSERT INTO tenant_members (tenant_id, user_id, approver,"
                        + " admin, webhook_url, webhook_format) VALUES (?, ?, ?, false, ?, ?)")) {
            insert.setString(1, tenant.id());
            insert.setString(2, user);
            insert.setBoolean(3, approver);
            insert.setString(4, webhookUrl);
            insert.setString(5, format);
            insert.executeUpdate();
        }
    }

    /** The key of {@code user}'s webhook, as they read it (an approver's token, as they were set up). */
    private String keyOf(String user) {
        return given().header("Authorization", "Bearer " + tenant.bearer(user, Groups.APPROVER))
                .get("/api/me/notifications").then().statusCode(200).extract().path("webhookSecret");
    }

    private String notification(UUID actionId, String recipient, String column) throws SQLException {
        return Db.text("SELECT " + column + " FROM notifications WHERE action_id = ? AND recipient = ?"
                + " AND channel = 'webhook'", actionId, recipient);
    }

    @Test
    void theWebhooksAreSignedCarryNothingTheAgentWroteAndGoOnlyWhereAnAdministratorAllowed() throws Exception {
        var proposal = new ProposalMother(tenant, "12.50");
        proposal.params().put("description", "URGENT click https://evil.example/confirm now");
        proposal.rehash();
        proposal.stage(kafka);

        await().atMost(Duration.ofSeconds(20))
                .until(() -> "sent".equals(notification(proposal.actionId, "bob", "state"))
                        && "sent".equals(notification(proposal.actionId, "carol", "state"))
                        && "refused".equals(notification(proposal.actionId, "erin", "state")));
        String secret = keyOf("bob");
        String link = "https://decide.test/decide/?action=" + proposal.actionId;

        WebhookReceiver.Delivery toBob = receiver.deliveriesTo("/bob").get(0);
        toBob.verify(secret);
        assertThat(toBob.query()).isEqualTo("team=1");
        assertThat(toBob.id()).isEqualTo(notification(proposal.actionId, "bob", "id"));
        assertThat(Instant.ofEpochSecond(Long.parseLong(toBob.timestamp())))
                .isBetween(Instant.now().minusSeconds(60), Instant.now());
        JsonNode body = Json.read(toBob.body(), JsonNode.class);
        assertThat(body.path("type").asText()).isEqualTo("action.waiting");
        assertThat(body.path("data").path("actionId").asText()).isEqualTo(proposal.actionId.toString());
        assertThat(body.path("data").path("decisionPage").asText()).isEqualTo(link);
        assertThat(body.path("data").path("requestedBy").asText()).isEqualTo("alice");
        assertThat(toBob.body()).doesNotContain("evil.example").doesNotContain("URGENT")
                .doesNotContain(proposal.token);

        WebhookReceiver.Delivery toCarol = receiver.deliveriesTo("/services/T1/B2/carol").get(0);
        toCarol.verify(keyOf("carol"));
        // Each person's key is theirs: bob's verifies (so would sign) none of carol's messages.
        assertThatThrownBy(() -> toCarol.verify(secret)).isInstanceOf(WebhookVerificationException.class);
        assertThat(Json.read(toCarol.body(), JsonNode.class).path("text").asText())
                .startsWith("Waiting for your decision: *Add a transaction*").contains("<" + link + "|");

        // The signature holds for this body, this id and this secret only.
        var forged = new WebhookReceiver.Delivery(toBob.path(), toBob.query(), toBob.id(), toBob.timestamp(),
                toBob.signature(), toBob.body().replace("alice", "mallory"));
        assertThatThrownBy(() -> forged.verify(secret)).isInstanceOf(WebhookVerificationException.class);
        assertThatThrownBy(() -> toBob.verify("whsec_" + "A".repeat(43) + "="))
                .isInstanceOf(WebhookVerificationException.class);
        // Replayed ten minutes later: correctly signed for its old timestamp, and refused for its age.
        long old = Instant.now().minus(Duration.ofMinutes(10)).getEpochSecond();
        var replayed = new WebhookReceiver.Delivery(toBob.path(), toBob.query(), toBob.id(), String.valueOf(old),
                new Webhook(secret).sign(toBob.id(), old, toBob.body()), toBob.body());
        assertThatThrownBy(() -> replayed.verify(secret)).isInstanceOf(WebhookVerificationException.class)
                .hasMessageContaining("too old");

        // erin's origin is on no allow-list: nothing went there, and the refusal is recorded.
        assertThat(elsewhere.deliveries()).isEmpty();
        assertThat(notification(proposal.actionId, "erin", "detail")).contains(elsewhere.origin())
                .contains("not on the tenant's webhook allow-list");
        assertThat(receiver.deliveries()).hasSize(2);
    }

    @Test
    void aWebhookSentAgainCarriesTheSameId() throws Exception {
        var proposal = ProposalMother.staged(kafka, tenant, "12.50");
        await().atMost(Duration.ofSeconds(20)).until(() -> "sent".equals(notification(proposal.actionId, "bob",
                "state")));
        String id = notification(proposal.actionId, "bob", "id");

        // As if the sender had died after the receiver accepted it and before the send was recorded.
        try (var owner = Db.owner();
                var reset = owner.prepareStatement("UPDATE notifications SET state = 'pending', sent_at = NULL,"
                        + " not_before = now() WHERE id = ?::uuid")) {
            reset.setString(1, id);
            reset.executeUpdate();
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> receiver.deliveriesTo("/bob").size() == 2);
        List<WebhookReceiver.Delivery> toBob = receiver.deliveriesTo("/bob");
        assertThat(toBob).extracting(WebhookReceiver.Delivery::id).containsOnly(id);
        for (var delivery : toBob) {
            delivery.verify(keyOf("bob"));
        }
    }

    @Test
    void aSlowOrUnreachableWebhookDelaysNoDecision() throws Exception {
        // dave approves at an allowed origin where nothing listens.
        int closed = FreePorts.one();
        member("dave", true, "http://127.0.0.1:" + closed + "/dave", "standard");
        TenantPolicies.set(tenant.id(), "webhook-origins",
                Map.of("origins", List.of(receiver.origin(), "http://127.0.0.1:" + closed)));
        receiver.hold();
        var slow = ProposalMother.staged(kafka, tenant, "12.50");
        await().atMost(Duration.ofSeconds(20)).until(() -> !receiver.deliveries().isEmpty());

        // While the receiver holds its answer, a decision goes through.
        var other = ProposalMother.staged(kafka, tenant, "13.50");
        other.decide("confirm", tenant.bearer("alice", Groups.USER)).then().statusCode(200);
        assertThat(Db.status(other.actionId)).isEqualTo("executed");
        assertThat(Db.count("SELECT count(*) FROM notifications WHERE action_id = ? AND state = 'pending'"
                + " AND detail IS NULL AND attempts = 1", slow.actionId))
                .as("the sender is still inside the held send").isEqualTo(1);

        // Once it answers, the sender goes on; dave's webhook refuses the connection: a failed attempt, tried again
        // after its lease.
        receiver.release();
        await().atMost(Duration.ofSeconds(20)).until(() -> notification(slow.actionId, "dave", "detail") != null);
        assertThat(notification(slow.actionId, "dave", "state")).as("tried again after its lease").isEqualTo("pending");
        assertThat(notification(slow.actionId, "dave", "attempts")).isEqualTo("1");
    }

    @Test
    void aPersonNamesTheirWebhookAndLearnsWhetherItsOriginIsAllowed() {
        String gina = tenant.bearer("gina", Groups.APPROVER);
        String choice = "{\"email\": false, \"webhook\": true, \"webhookUrl\": \"%s\", \"webhookFormat\": \"slack\"}";
        given().header("Authorization", "Bearer " + gina).contentType("application/json")
                .body(choice.formatted(receiver.origin() + "/gina")).put("/api/me/notifications").then()
                .statusCode(200).body("webhookUrl", equalTo(receiver.origin() + "/gina"))
                .body("webhookFormat", equalTo("slack")).body("webhookAllowed", equalTo(true));
        given().header("Authorization", "Bearer " + gina).contentType("application/json")
                .body(choice.formatted(elsewhere.origin() + "/gina")).put("/api/me/notifications").then()
                .statusCode(200).body("webhookAllowed", equalTo(false));
        String key = given().header("Authorization", "Bearer " + gina).get("/api/me/notifications").then()
                .statusCode(200).body("webhookUrl", equalTo(elsewhere.origin() + "/gina"))
                .body("webhookAllowed", equalTo(false)).extract().path("webhookSecret");
        assertThat(key).startsWith("whsec_").isNotEqualTo(keyOf("bob"));
        for (String bad : List.of("ftp://hooks.example.com/x", "https://user:pw@hooks.example.com/x",
                "https://hooks.example.com/a b", "https://hooks.example.com/x#frag", "/relative")) {
            given().header("Authorization", "Bearer " + gina).contentType("application/json")
                    .body(choice.formatted(bad)).put("/api/me/notifications").then().statusCode(400)
                    .body("code", equalTo("validation_failed"));
        }
        given().header("Authorization", "Bearer " + gina).get("/api/me/notifications").then().statusCode(200)
                .body("webhookUrl", equalTo(elsewhere.origin() + "/gina"));
    }

    @Test
    void namingAnOriginTakesTwoAdministratorsAndTakingOneAwayOne() {
        TenantPolicies.put(tenant.id(), "admin", "webhook-origins",
                Map.of("origins", List.of(receiver.origin(), elsewhere.origin()))).statusCode(202);
        TenantPolicies
                .put(tenant.id(), "admin", "webhook-origins", Map.of("origins", List.of("https://x.example/path")))
                .statusCode(400);
        TenantPolicies.put(tenant.id(), "admin", "webhook-origins", Map.of("origins", List.of())).statusCode(200);
        given().header("Authorization", "Bearer " + tenant.bearer("bob", Groups.APPROVER))
                .get("/api/actions/policy/webhook-origins").then().statusCode(200).body("origins", hasSize(0));
    }
}
