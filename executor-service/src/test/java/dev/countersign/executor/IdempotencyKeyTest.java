package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.equalTo;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.SQLException;
import java.util.HexFormat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/** One idempotency key per action, issued and retired by the database (R__idempotency_keys_follow_actions.sql). */
@QuarkusTest
@ExecutorTestResources
class IdempotencyKeyTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;
    private String alice;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
        alice = tenant.executorBearer("alice");
    }

    @Test
    void theKeyIsDerivedFromTheActionIdAndShownWithTheAction() throws Exception {
        var proposal = ProposalMother.staged(kafka, tenant, "12.50");
        String expected = "cs1_" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(("countersign/action/" + proposal.actionId).getBytes(StandardCharsets.UTF_8)));

        given().header("Authorization", "Bearer " + alice).get("/api/actions/{id}", proposal.actionId)
                .then().statusCode(200).body("idempotencyKey", equalTo(expected));
        assertThat(Db.text("SELECT key FROM idempotency_keys WHERE action_id = ? AND retired_at IS NULL",
                proposal.actionId)).isEqualTo(expected);
    }

    @Test
    void anExecutedActionKeepsItsKeyLive() throws Exception {
        var proposal = ProposalMother.staged(kafka, tenant, "12.50");

        decide(proposal, "confirm").then().statusCode(200).body("status", equalTo("executed"));

        assertThat(Db.text("SELECT retired_because FROM idempotency_keys WHERE action_id = ?", proposal.actionId))
                .isNull();
        assertThat(Db.count("SELECT count(*) FROM idempotency_keys WHERE action_id = ?", proposal.actionId))
                .isEqualTo(1);
    }

    @Test
    void cancellingRetiresTheKey() throws Exception {
        var proposal = ProposalMother.staged(kafka, tenant, "12.50");

        decide(proposal, "cancel").then().statusCode(200);

        assertThat(Db.text("SELECT retired_because FROM idempotency_keys WHERE action_id = ? AND retired_at"
                + " IS NOT NULL", proposal.actionId)).isEqualTo("cancelled");
    }

    @Test
    void expiryRetiresTheKey() throws Exception {
        var proposal = new ProposalMother(tenant, "12.50");
        proposal.event.put("requestedTtlSeconds", 1);
        proposal.send(kafka);

        Db.awaitStatus(proposal.actionId, "expired");
        assertThat(Db.text("SELECT retired_because FROM idempotency_keys WHERE action_id = ? AND retired_at"
                + " IS NOT NULL", proposal.actionId)).isEqualTo("expired");
    }

    @Test
    void aRetiredKeyIsNeverRevivedNorDeletedAndTheServiceCannotTouchKeys() throws Exception {
        var proposal = ProposalMother.staged(kafka, tenant, "12.50");
        decide(proposal, "cancel").then().statusCode(200);

        try (var owner = Db.owner()) {
            for (String statement : new String[]{
                    "UPDATE idempotency_keys SET retired_at = NULL, retired_because = NULL WHERE action_id = '%s'",
                    "UPDATE idempotency_keys SET key = 'reused' WHERE action_id = '%s'",
                    "DELETE FROM idempotency_keys WHERE action_id = '%s'"}) {
                String sql = statement.formatted(proposal.actionId);
                assertThatThrownBy(() -> owner.createStatement().executeUpdate(sql)).as(sql)
                        .isInstanceOf(SQLException.class)
                        .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("23514"));
            }
        }
        Db.refusedAsApplication(tenant.id(), "42501",
                "UPDATE idempotency_keys SET retired_at = NULL",
                "INSERT INTO idempotency_keys (key, action_id, tenant_id) VALUES ('k', gen_random_uuid(), 't')",
                "DELETE FROM idempotency_keys");
        assertThat(Db.text("SELECT retired_because FROM idempotency_keys WHERE action_id = ?", proposal.actionId))
                .isEqualTo("cancelled");
    }

    private io.restassured.response.Response decide(ProposalMother proposal, String decision) {
        return proposal.decide(decision, alice);
    }
}
