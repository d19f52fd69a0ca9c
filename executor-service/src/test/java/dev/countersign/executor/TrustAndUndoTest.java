package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.equalTo;

import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.ContractFixtures;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.events.ActionExecuted;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/**
 * Tiers that act, earned trust and undo, for a tenant whose administrator enabled agent writes (the test profile's
 * default stages everything, see application.properties).
 */
@QuarkusTest
@ExecutorTestResources
class TrustAndUndoTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void tenantWithAgentWritesEnabled() throws Exception {
        tenant = TestTenant.withCheckingWallet();
        TenantPolicies.set(tenant.id(), "agent-writes", Map.of("mode", "enabled"));
    }

    private ValidatableResponse put(String path, Object body) {
        return given().header("Authorization", "Bearer " + tenant.executorBearer("admin"))
                .contentType("application/json")
                .body(Json.write(body)).put(path).then();
    }

    private ValidatableResponse get(String path) {
        return given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).get(path).then();
    }

    private ValidatableResponse undo(ProposalMother proposal, String bearer) {
        return given().header("Authorization", "Bearer " + bearer).post("/api/actions/{id}/undo", proposal.actionId)
                .then();
    }

    private ValidatableResponse undo(ProposalMother proposal) {
        return undo(proposal, tenant.executorBearer("alice"));
    }

    /** Sends {@code proposal} and waits until the executor has settled it on arrival (staged or applied). */
    private ProposalMother arrive(ProposalMother proposal, String status) {
        proposal.send(kafka);
        Db.awaitStatus(proposal.actionId, status);
        return proposal;
    }

    private ProposalMother rename(String name) {
        return new ProposalMother(tenant, ShippedKinds.RENAME_WALLET,
                params().put("walletId", tenant.wallet().toString()).put("name", name));
    }

    private static ObjectNode params() {
        return Json.mapper().createObjectNode();
    }

    private UUID transaction(String amount) throws SQLException {
        return tenant.coffee(amount);
    }

    private String walletName() throws SQLException {
        return Db.text("SELECT name FROM wallets WHERE id = ?", tenant.wallet());
    }

    @Test
    void aLowExpenseAppliesOnArrivalAndOneAtTheThresholdWaits() throws Exception {
        var small = arrive(new ProposalMother(tenant, "12.50"), "executed");
        var large = arrive(new ProposalMother(tenant, "500.00"), "proposed");

        get("/api/actions/" + small.actionId).statusCode(200).body("tier", equalTo("low"))
                .body("autoApplied", equalTo(true)).body("confirmedBy", equalTo(ActionExecuted.AUTO_APPLIER));
        assertThat(small.ledgerRows()).isEqualTo(1);
        assertThat(Db.text("SELECT channel || ' ' || actor || ' ' || reason FROM action_history"
                + " WHERE action_id = ? AND to_status = 'confirmed'", small.actionId))
                .isEqualTo("auto-apply " + ActionExecuted.AUTO_APPLIER + " tier low");
        get("/api/actions/" + large.actionId).body("tier", equalTo("high")).body("autoApplied", equalTo(false));
        assertThat(large.ledgerRows()).isZero();
    }

    @Test
    void theTenantsThresholdDecidesTheTierAndStagedOnlyStopsAutoApply() throws Exception {
        put("/api/actions/policy/tiers", Map.of("highImpactThreshold", "100.00")).statusCode(200);
        arrive(new ProposalMother(tenant, "150.00"), "proposed");
        arrive(new ProposalMother(tenant, "99.99"), "executed");

        put("/api/actions/policy/agent-writes", Map.of("mode", "staged_only")).statusCode(200);
        var small = arrive(new ProposalMother(tenant, "1.00"), "proposed");
        assertThat(small.ledgerRows()).isZero();
        put("/api/actions/policy/tiers", Map.of("highImpactThreshold", "0")).statusCode(400)
                .body("code", equalTo("validation_failed"));
    }

    @Test
    void tenConfirmedRenamesEarnTrustAndOneUndoTakesItAway() throws Exception {
        for (int i = 1; i <= 10; i++) {
            // The 10th is still staged: only 9 were confirmed before it arrived.
            var proposal = arrive(rename("Checking " + i), "proposed");
            proposal.decide("confirm", tenant.executorBearer("alice")).then().statusCode(200)
                    .body("status", equalTo("executed"));
            get("/api/actions/trust").statusCode(200).body("mediumConfirmedInARow", equalTo(i))
                    .body("mediumAutoApplies", equalTo(i >= 10));
        }
        assertThat(walletName()).isEqualTo("Checking 10");

        var trusted = arrive(rename("Household"), "executed");
        assertThat(walletName()).isEqualTo("Household");
        assertThat(Db.text("SELECT name_action_id FROM wallets WHERE id = ?", tenant.wallet()))
                .isEqualTo(trusted.actionId.toString());
        get("/api/actions/" + trusted.actionId).body("autoApplied", equalTo(true));
        get("/api/actions/trust").body("mediumConfirmedInARow", equalTo(10)); // applied by the rules: not counted

        // Trust or not, a delete never applies on arrival.
        UUID coffee = transaction("3.50");
        arrive(new ProposalMother(tenant, ShippedKinds.DELETE_TRANSACTION,
                params().put("transactionId", coffee.toString())), "proposed");

        undo(trusted).statusCode(200).body("status", equalTo("undone")).body("undoneBy", equalTo("alice"));
        assertThat(walletName()).isEqualTo("Checking 10");
        get("/api/actions/trust").body("mediumConfirmedInARow", equalTo(0)).body("mediumAutoApplies", equalTo(false))
                .body("resetBecause", equalTo("undid " + trusted.actionId));

        arrive(rename("Household again"), "proposed");
    }

    @Test
    void anotherUsersWalletOrTransactionAlwaysWaitsForAPerson() throws Exception {
        UUID bobs;
        try (var owner = Db.owner()) {
            bobs = dev.countersign.devsupport.DemoData.createWallet(owner, tenant.id(), "bob", "Bob's", "EUR");
        }
        var inBobsWallet = new ProposalMother(tenant.id(), bobs, "3.00");
        arrive(inBobsWallet, "proposed");
        var inAlicesWallet = arrive(new ProposalMother(tenant, "3.00"), "executed");

        get("/api/actions/" + inBobsWallet.actionId).body("tier", equalTo("low")).body("autoApplied", equalTo(false));
        assertThat(inAlicesWallet.ledgerRows()).isEqualTo(1);
    }

    @Test
    void anEditOfALargeTransactionIsHighEvenWhenItMakesTheAmountSmall() throws Exception {
        UUID large = transaction("750.00");
        UUID small = transaction("20.00");
        var down = arrive(new ProposalMother(tenant, ShippedKinds.EDIT_TRANSACTION,
                params().put("transactionId", large.toString()).put("amount", "1.00")), "proposed");
        var up = arrive(new ProposalMother(tenant, ShippedKinds.EDIT_TRANSACTION,
                params().put("transactionId", small.toString()).put("amount", "900.00")), "proposed");
        var within = arrive(new ProposalMother(tenant, ShippedKinds.EDIT_TRANSACTION,
                params().put("transactionId", small.toString()).put("amount", "25.00")), "proposed");

        get("/api/actions/" + down.actionId).body("tier", equalTo("high"));
        get("/api/actions/" + up.actionId).body("tier", equalTo("high"));
        get("/api/actions/" + within.actionId).body("tier", equalTo("medium"));
    }

    @Test
    void cancellingAMediumProposalEndsTheRun() throws Exception {
        var first = arrive(rename("One"), "proposed");
        first.decide("confirm", tenant.executorBearer("alice")).then().statusCode(200);
        var second = arrive(rename("Two"), "proposed");
        second.decide("cancel", tenant.executorBearer("alice")).then().statusCode(200);

        get("/api/actions/trust").body("mediumConfirmedInARow", equalTo(0))
                .body("resetBecause", equalTo("cancelled " + second.actionId));
    }

    @Test
    void undoOfAnEditPutsBackWhatThePersonSawAndIsAudited() throws Exception {
        UUID coffee = transaction("3.50");
        var edit = arrive(new ProposalMother(tenant, ShippedKinds.EDIT_TRANSACTION,
                params().put("transactionId", coffee.toString()).put("amount", "4.00").put("description", "tea")),
                "proposed");
        edit.decide("confirm", tenant.executorBearer("alice")).then().statusCode(200);
        // The edit is recorded as the writer of the text it wrote, the note, and of no other (the agent's provenance
        // rule reads it; ProvenanceTest has the rest).
        assertThat(Db.text("SELECT description_action_id || ' ' || coalesce(category_action_id::text, '-')"
                + " FROM transactions WHERE id = ?", coffee)).isEqualTo(edit.actionId + " -");

        undo(edit).statusCode(200).body("status", equalTo("undone"));

        assertThat(Db.text("SELECT amount || ' ' || category || ' ' || description || ' ' || occurred_on"
                + " FROM transactions WHERE id = ?", coffee)).isEqualTo("3.50 coffee flat white 2026-11-01");
        assertThat(Db.text("SELECT string_agg(to_status || ':' || actor, ',' ORDER BY id) FROM action_history"
                + " WHERE action_id = ?", edit.actionId)).endsWith("executed:alice,undone:alice");
        undo(edit).statusCode(409).body("code", equalTo("invalid_state_transition"));
        var undone = kafka.awaitAny(Topics.ACTIONS_OUTCOMES,
                value -> value.contains(edit.actionId.toString()) && value.contains("ActionUndone"));
        assertThat(undone).hasSize(1);
        assertThat(ContractFixtures.memberNames(Json.mapper().readTree(undone.get(0))))
                .containsExactlyInAnyOrderElementsOf(ContractFixtures.memberNames(ContractFixtures.ACTION_UNDONE));
    }

    @Test
    void undoOfACreateAndOfADeleteReverseEachOther() throws Exception {
        var expense = arrive(new ProposalMother(tenant, "7.00"), "executed");
        undo(expense).statusCode(200);
        assertThat(Db.count("SELECT count(*) FROM transactions WHERE source_action_id = ? AND deleted_at IS NULL",
                expense.actionId)).isZero();

        UUID coffee = transaction("3.50");
        var delete = arrive(new ProposalMother(tenant, ShippedKinds.DELETE_TRANSACTION,
                params().put("transactionId", coffee.toString())), "proposed");
        delete.decide("confirm", tenant.executorBearer("alice")).then().statusCode(200);
        undo(delete).statusCode(200);
        assertThat(Db.count("SELECT count(*) FROM transactions WHERE id = ? AND deleted_at IS NULL", coffee))
                .isEqualTo(1);
    }

    @Test
    void undoIsRefusedWhenTheRowChangedSinceAndNothingMoves() throws Exception {
        var renamed = arrive(rename("Bills"), "proposed");
        renamed.decide("confirm", tenant.executorBearer("alice")).then().statusCode(200);
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate("UPDATE wallets SET name = 'Changed by hand' WHERE id = '%s'"
                    .formatted(tenant.wallet()));
        }

        undo(renamed).statusCode(409).body("code", equalTo("target_changed"));

        assertThat(walletName()).isEqualTo("Changed by hand");
        assertThat(Db.status(renamed.actionId)).isEqualTo("executed");
        get("/api/actions/trust").body("mediumConfirmedInARow", equalTo(1));
    }

    @Test
    void onlyTheRequesterOrAnAdministratorUndoesAndOnlyUndoableKindsWithinTheWindow() throws Exception {
        var expense = arrive(new ProposalMother(tenant, "7.00"), "executed");
        // bob neither asked for it nor owns its row: it does not exist for him (the decision rule's read row).
        undo(expense, TestProperties.executorBearerWithoutApproval(tenant.id(), "bob")).statusCode(404)
                .body("code", equalTo("action_not_found"));
        undo(expense, tenant.executorBearer("carol")).statusCode(200); // an administrator

        var plan = arrive(new ProposalMother(tenant, ShippedKinds.DRAFT_PLAN, params().put("name", "Base")
                .put("startsOn", "2026-12-01").put("schedule", "Mon: run")), "executed");
        undo(plan).statusCode(409).body("code", equalTo("not_undoable"));

        // The requester without the admin group may undo a LOW action of theirs, not a HIGH one.
        String plainAlice = TestProperties.executorBearerWithoutApproval(tenant.id(), "alice");
        undo(arrive(new ProposalMother(tenant, "9.00"), "executed"), plainAlice).statusCode(200);
        UUID coffee = transaction("3.50");
        var delete = arrive(new ProposalMother(tenant, ShippedKinds.DELETE_TRANSACTION,
                params().put("transactionId", coffee.toString())), "proposed");
        delete.decide("confirm", tenant.executorBearer("alice")).then().statusCode(200);
        undo(delete, plainAlice).statusCode(403).body("code", equalTo("forbidden"));

        var old = arrive(new ProposalMother(tenant, "8.00"), "executed");
        ranLongAgo(old.actionId);
        undo(old).statusCode(409).body("code", equalTo("undo_window_closed"));
        assertThat(old.ledgerRows()).isEqualTo(1);
        undo(new ProposalMother(tenant, "1.00")).statusCode(404).body("code", equalTo("action_not_found"));
    }

    /** An executed action whose execution time lies past the 24 h window (the guard lets only the owner do this). */
    private static void ranLongAgo(UUID actionId) throws SQLException {
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate("ALTER TABLE actions DISABLE TRIGGER actions_guard");
            try {
                owner.createStatement().executeUpdate(
                        "UPDATE actions SET executed_at = now() - interval '25 hours' WHERE id = '%s'"
                                .formatted(actionId));
            } finally {
                owner.createStatement().executeUpdate("ALTER TABLE actions ENABLE TRIGGER actions_guard");
            }
        }
    }

    @Test
    void theDatabaseRefusesUndoMarksAndAutoApplyMarksOutsideTheirMoves() throws Exception {
        var expense = arrive(new ProposalMother(tenant, "7.00"), "executed");
        var staged = arrive(new ProposalMother(tenant, "600.00"), "proposed");

        var high = arrive(new ProposalMother(tenant, "700.00"), "proposed");
        put("/api/actions/policy/agent-writes", Map.of("mode", "staged_only")).statusCode(200);
        var low = arrive(new ProposalMother(tenant, "5.00"), "proposed");
        Db.refusedAsApplication(tenant.id(), "23514",
                "UPDATE actions SET status = 'confirmed', confirmed_by = '%s', confirmed_at = now(),"
                        .formatted(ActionExecuted.AUTO_APPLIER)
                        + " auto_applied = true WHERE id = '%s'"
                                .formatted(high.actionId),
                "UPDATE actions SET status = 'confirmed', confirmed_by = 'mallory', confirmed_at = now(),"
                        + " auto_applied = true WHERE id = '%s'".formatted(low.actionId),
                "UPDATE actions SET undone_by = 'mallory', undone_at = now() WHERE id = '%s'"
                        .formatted(expense.actionId),
                "UPDATE actions SET status = 'undone' WHERE id = '%s'".formatted(expense.actionId),
                "UPDATE actions SET auto_applied = false WHERE id = '%s'".formatted(expense.actionId),
                "UPDATE actions SET auto_applied = true WHERE id = '%s'".formatted(staged.actionId));
        assertThatThrownBy(() -> {
            try (var owner = Db.owner()) {
                owner.createStatement().executeUpdate(("INSERT INTO user_trust (tenant_id, user_id,"
                        + " medium_confirmed_in_a_row) VALUES ('%s', 'mallory', -1)").formatted(tenant.id()));
            }
        }).isInstanceOf(SQLException.class);
    }
}
