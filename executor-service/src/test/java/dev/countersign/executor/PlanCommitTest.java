package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.api.PlanCommitRequest;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.devsupport.testing.TestProperties;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/** Committing a training plan: a user action that activates a draft and archives the active plan, never a kind. */
@QuarkusTest
@ExecutorTestResources
class PlanCommitTest {

    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    /** Commits as the page does: naming the draft's version and the active plan the caller reads now. */
    private ValidatableResponse commit(String user, Object planId) throws SQLException {
        String version = planId instanceof UUID id
                ? Db.text("SELECT version FROM training_plans WHERE id = ?", id)
                : null;
        String active = Db.text(
                "SELECT id FROM training_plans WHERE tenant_id = ? AND user_id = ? AND status = 'active'",
                tenant.id(), user);
        return commit(user, planId, version == null ? 1 : Long.parseLong(version),
                active == null ? null : UUID.fromString(active));
    }

    private ValidatableResponse commit(String user, Object planId, long version, UUID replaces) {
        return given().header("Authorization", "Bearer " + tenant.executorBearer(user)).contentType("application/json")
                .body(new PlanCommitRequest(version, replaces)).post("/api/actions/plans/{id}/commit", planId).then();
    }

    private String status(UUID plan) throws SQLException {
        return Db.text("SELECT status FROM training_plans WHERE id = ?", plan);
    }

    @Test
    void committingADraftMakesItActiveAndArchivesThePreviousActivePlan() throws Exception {
        UUID first = tenant.plan("alice", "draft");
        UUID second = tenant.plan("alice", "draft");
        UUID bobs = tenant.plan("bob", "active");

        commit("alice", first).statusCode(200).body("planId", equalTo(first.toString()))
                .body("activatedBy", equalTo("alice")).body("archivedPlanId", nullValue());
        commit("alice", second).statusCode(200).body("archivedPlanId", equalTo(first.toString()));

        assertThat(status(first)).isEqualTo("archived");
        assertThat(status(second)).isEqualTo("active");
        assertThat(status(bobs)).isEqualTo("active");
    }

    @Test
    void theCallerSeesTheirActivePlanFirstThenTheirDraftsNeverArchivedOnesNorAnotherUsers() throws Exception {
        UUID draft = tenant.plan("alice", "draft");
        UUID active = tenant.plan("alice", "active");
        tenant.plan("alice", "archived");
        tenant.plan("bob", "draft");

        given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).get("/api/actions/plans").then()
                .statusCode(200).body("id", org.hamcrest.Matchers.contains(active.toString(), draft.toString()))
                .body("status", org.hamcrest.Matchers.contains("active", "draft"))
                .body("[0].name", equalTo("Base"))
                // A person's plans are never kept by a cache, nor read as another type.
                .header("Cache-Control", "no-store").header("X-Content-Type-Options", "nosniff");
        given().header("Authorization", "Bearer " + TestProperties.executorBearer("other-" + UUID.randomUUID(),
                "alice")).get("/api/actions/plans").then().statusCode(200).body("$", org.hamcrest.Matchers.empty());
    }

    @Test
    void onlyTheOwnersDraftsCanBeCommitted() throws Exception {
        UUID bobsDraft = tenant.plan("bob", "draft");
        UUID active = tenant.plan("alice", "active");

        commit("alice", bobsDraft).statusCode(404).body("code", equalTo("not_found"));
        // Whatever else the request names: another user's plan is simply absent.
        commit("alice", bobsDraft, 1, UUID.randomUUID()).statusCode(404).body("code", equalTo("not_found"));
        commit("alice", active).statusCode(409).body("code", equalTo("invalid_state_transition"));
        commit("alice", "not-a-uuid").statusCode(404).body("code", equalTo("not_found"));
        assertThat(status(bobsDraft)).isEqualTo("draft");
    }

    @Test
    void aDraftRevisedAfterThePersonReadItIsNotCommitted() throws Exception {
        UUID draft = tenant.plan("alice", "draft");
        long read = Long.parseLong(Db.text("SELECT version FROM training_plans WHERE id = ?", draft));
        // The agent's revision (a LOW action that applies on arrival) lands between reading and committing.
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate("UPDATE training_plans SET schedule = 'Mon: rest' WHERE id = '"
                    + draft + "'");
        }

        commit("alice", draft, read, null).statusCode(409).body("code", equalTo("plan_changed"))
                .body("detail", containsString("revised after you read it"));
        assertThat(status(draft)).isEqualTo("draft");
        commit("alice", draft).statusCode(200);
    }

    @Test
    void theCommitArchivesOnlyTheActivePlanThePersonWasShown() throws Exception {
        UUID active = tenant.plan("alice", "active");
        UUID draft = tenant.plan("alice", "draft");
        long version = Long.parseLong(Db.text("SELECT version FROM training_plans WHERE id = ?", draft));

        commit("alice", draft, version, null).statusCode(409).body("code", equalTo("plan_changed"));
        commit("alice", draft, version, UUID.randomUUID()).statusCode(409).body("code", equalTo("plan_changed"));
        assertThat(status(active)).isEqualTo("active");
        assertThat(status(draft)).isEqualTo("draft");

        commit("alice", draft, version, active).statusCode(200).body("archivedPlanId", equalTo(active.toString()));
    }

    @Test
    void aCommitThatDoesNotSayWhatThePersonReadIsRefused() throws Exception {
        UUID draft = tenant.plan("alice", "draft");

        given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).contentType("application/json")
                .body("{}").post("/api/actions/plans/{id}/commit", draft).then().statusCode(400)
                .body("code", equalTo("validation_failed"));
        assertThat(status(draft)).isEqualTo("draft");
    }

    @Test
    void aPlanMadeActiveAroundTheApplicationMeanwhileFailsTheCommitClearlyAndChangesNothing() throws Exception {
        UUID draft = tenant.plan("alice", "draft");
        UUID elsewhere = UUID.randomUUID();
        try (Connection other = Db.owner()) {
            // Another writer, around the application: a plan born and activated in one transaction the commit's row
            // locks cannot see; the commit then waits on the unique index and meets it when that writer commits.
            other.setAutoCommit(false);
            other.createStatement()
                    .executeUpdate(("INSERT INTO training_plans (id, tenant_id, user_id, name, starts_on,"
                            + " schedule, status) VALUES ('%s', '%s', 'alice', 'Elsewhere', current_date, 'x', 'draft')")
                            .formatted(elsewhere, tenant.id()));
            other.createStatement().executeUpdate("UPDATE training_plans SET status = 'active', activated_by = 'alice',"
                    + " activated_at = now() WHERE id = '" + elsewhere + "'");
            long version = Long.parseLong(Db.text("SELECT version FROM training_plans WHERE id = ?", draft));
            CompletableFuture<ValidatableResponse> commit = CompletableFuture
                    .supplyAsync(() -> commit("alice", draft, version, null));
            String otherTransaction = Db.text(other, "SELECT pg_current_xact_id()::text");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> Db.count("SELECT count(*) FROM pg_locks WHERE NOT granted"
                            + " AND locktype = 'transactionid' AND transactionid::text = ?", otherTransaction) == 1);
            other.commit();
            commit.get(20, TimeUnit.SECONDS).statusCode(409).body("code", equalTo("another_plan_active"))
                    .body("detail", containsString("Nothing changed"));
        }
        assertThat(status(draft)).isEqualTo("draft");
        assertThat(status(elsewhere)).isEqualTo("active");
    }

    @Test
    void committingIsNoActionKindAndNoAgentCanPropose() {
        assertThat(ActionCatalogue.all()).noneMatch(kind -> kind.kind().contains("commit")
                || kind.kind().contains("activate"));
    }

    @Test
    void theDatabaseKeepsAPlansStatusMovingOneWayWhateverTheApplicationDoes() throws Exception {
        UUID archived = tenant.plan("alice", "draft");
        commit("alice", archived).statusCode(200);
        commit("alice", tenant.plan("alice", "draft")).statusCode(200);

        UUID draft = tenant.plan("alice", "draft");
        Db.refusedAsApplication(tenant.id(), "23514",
                "UPDATE training_plans SET status = 'active' WHERE id = '" + archived + "'",
                "UPDATE training_plans SET status = 'draft' WHERE id = '" + archived + "'",
                "UPDATE training_plans SET name = 'Renamed' WHERE id = '" + archived + "'",
                "UPDATE training_plans SET activated_by = 'mallory' WHERE id = '" + archived + "'",
                "UPDATE training_plans SET status = 'active' WHERE id = '" + draft + "'",
                "UPDATE training_plans SET status = 'active', activated_by = 'bob', activated_at = now() WHERE id = '"
                        + draft + "'",
                "INSERT INTO training_plans (id, tenant_id, user_id, name, starts_on, schedule, status) VALUES"
                        + " (gen_random_uuid(), '" + tenant.id() + "', 'alice', 'Sneaky', current_date, 'x',"
                        + " 'archived')");
    }
}
