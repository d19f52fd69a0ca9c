package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.equalTo;

import java.sql.SQLException;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.Topics;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/** The kinds beyond creating expenses and renaming wallets: each staged from Kafka and confirmed over HTTP. */
@QuarkusTest
@ExecutorTestResources
class DomainKindsTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    private UUID transaction(String amount, String category, String description) throws SQLException {
        UUID id = UUID.randomUUID();
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate(("INSERT INTO transactions (id, tenant_id, wallet_id, amount,"
                    + " category, description, occurred_on) VALUES ('%s', '%s', '%s', %s, '%s', '%s', '2026-11-01')")
                    .formatted(id, tenant.id(), tenant.wallet(), amount, category, description));
        }
        return id;
    }

    private static ObjectNode params() {
        return Json.mapper().createObjectNode();
    }

    private ProposalMother staged(String kind, ObjectNode params) throws Exception {
        return new ProposalMother(tenant, kind, params).stage(kafka);
    }

    private io.restassured.response.ValidatableResponse confirm(ProposalMother proposal) {
        return proposal.decide("confirm", tenant.executorBearer("alice")).then();
    }

    /** The decision page names no kind: it reads the labels and which kinds can be undone here from the executor. */
    @Test
    void theKindsArePublishedWithTheirLabelsAndWhetherTheyCanBeUndone() {
        var kinds = given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).get("/api/kinds")
                .then().statusCode(200).extract().jsonPath();

        assertThat(kinds.getList("kind", String.class)).containsExactlyElementsOf(
                ActionCatalogue.all().stream().map(ActionDefinition::kind).toList());
        assertThat(kinds.getString("find { it.kind == 'ledger.wallet.rename' }.label")).isEqualTo("Rename a wallet");
        assertThat(kinds.getList("findAll { it.undoable }.kind", String.class)).contains(
                ShippedKinds.CREATE_TRANSACTION, ShippedKinds.EDIT_TRANSACTION, ShippedKinds.DELETE_TRANSACTION,
                ShippedKinds.RENAME_WALLET, ShippedKinds.TRANSFER);
        assertThat(kinds.getList("findAll { !it.undoable }.kind", String.class)).contains(ShippedKinds.DRAFT_PLAN,
                ShippedKinds.REVISE_PLAN, ShippedKinds.SEND_MAIL, ShippedKinds.CREATE_TICKET);
        given().get("/api/kinds").then().statusCode(401);
    }

    @Test
    void aPersonsViewNamesWalletsAndTransactionsWhileTheStoredSummaryKeepsIds() throws Exception {
        UUID coffee = transaction("3.50", "coffee", "flat white");
        var expense = new ProposalMother(tenant, "12.50").stage(kafka);
        var rename = staged(ShippedKinds.RENAME_WALLET, params().put("walletId", tenant.wallet().toString())
                .put("name", "Everyday"));
        var edit = staged(ShippedKinds.EDIT_TRANSACTION, params().put("transactionId", coffee.toString())
                .put("amount", "4.00"));
        String alice = tenant.executorBearer("alice");

        given().header("Authorization", "Bearer " + alice).get("/api/actions/{id}", expense.actionId).then()
                .body("headline", org.hamcrest.Matchers.endsWith(" to \"Checking\""))
                .body("summary", org.hamcrest.Matchers.endsWith(" to wallet " + tenant.wallet()));
        given().header("Authorization", "Bearer " + alice).get("/api/actions/{id}", rename.actionId).then()
                .body("headline", equalTo("Rename \"Checking\" to \"Everyday\""))
                .body("summary", equalTo("Rename wallet " + tenant.wallet() + " to \"Everyday\""));
        given().header("Authorization", "Bearer " + alice).queryParam("kind", ShippedKinds.EDIT_TRANSACTION)
                .get("/api/actions").then()
                .body("items[0].headline", equalTo("Change the 3.50 coffee expense of 2026-11-01: amount to \"4.00\""))
                .body("items[0].summary", equalTo("Change transaction " + coffee + ": amount to \"4.00\""));
        assertThat(Db.text("SELECT summary FROM actions WHERE id = ?", edit.actionId)).contains(coffee.toString());
    }

    @Test
    void anEditChangesOnlyTheFieldsItNamesAndRecordsBeforeAndAfter() throws Exception {
        UUID coffee = transaction("3.50", "coffee", "flat white");
        var edit = staged(ShippedKinds.EDIT_TRANSACTION, params().put("transactionId", coffee.toString())
                .put("amount", "4.00").put("category", "tea"));

        confirm(edit).statusCode(200).body("status", equalTo("executed")).body("tier", equalTo("medium"))
                .body("result.before.amount", equalTo("3.50")).body("result.after.amount", equalTo("4.00"))
                .body("result.after.description", equalTo("flat white"));

        assertThat(Db.text("SELECT amount || ' ' || category || ' ' || description FROM transactions WHERE id = ?",
                coffee)).isEqualTo("4.00 tea flat white");
    }

    @Test
    void aDeleteMarksTheRowAndASecondDeleteFindsNothing() throws Exception {
        UUID coffee = transaction("3.50", "coffee", "flat white");
        var first = staged(ShippedKinds.DELETE_TRANSACTION, params().put("transactionId", coffee.toString()));
        var second = staged(ShippedKinds.DELETE_TRANSACTION, params().put("transactionId", coffee.toString()));

        confirm(first).statusCode(200).body("status", equalTo("executed")).body("tier", equalTo("high"));
        confirm(second).statusCode(409).body("code", equalTo("target_not_found"));

        assertThat(Db.text("SELECT deleted_by_action::text FROM transactions WHERE id = ?", coffee))
                .isEqualTo(first.actionId.toString());
        assertThat(Db.status(second.actionId)).isEqualTo("failed");
    }

    @Test
    void aDraftPlanIsCreatedAsADraftOfTheRequesterAndOnlyDraftsCanBeRevised() throws Exception {
        var draft = staged(ShippedKinds.DRAFT_PLAN, params().put("name", "Base building")
                .put("startsOn", "2026-12-01").put("schedule", "Mon: 5 km easy"));
        confirm(draft).statusCode(200).body("status", equalTo("executed")).body("tier", equalTo("low"));
        assertThat(Db.text("SELECT status || ' ' || user_id FROM training_plans WHERE id = ?", draft.actionId))
                .isEqualTo("draft alice");

        var revise = staged(ShippedKinds.REVISE_PLAN, params().put("planId", draft.actionId.toString())
                .put("schedule", "Mon: 6 km easy"));
        confirm(revise).statusCode(200).body("status", equalTo("executed"));
        assertThat(Db.text("SELECT schedule FROM training_plans WHERE id = ?", draft.actionId))
                .isEqualTo("Mon: 6 km easy");

        UUID active = tenant.plan("alice", "active");
        var reviseActive = new ProposalMother(tenant, ShippedKinds.REVISE_PLAN, params()
                .put("planId", active.toString()).put("name", "Sneaky"));
        reviseActive.send(kafka);
        assertThat(kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(reviseActive.actionId.toString())))
                .singleElement().asString().contains("ActionRejected").contains("target_not_found")
                .contains("draft plan " + active + " does not exist");
        assertThat(Db.text("SELECT name FROM training_plans WHERE id = ?", active)).isEqualTo("Base");
    }

    @Test
    void thePersonApprovesADiffFromTheRowAsStagedAndAChangedRowIsNotWritten() throws Exception {
        UUID coffee = transaction("3.50", "coffee", "flat white");
        var edit = staged(ShippedKinds.EDIT_TRANSACTION, params().put("transactionId", coffee.toString())
                .put("amount", "4.00").put("category", "tea"));
        String bearer = tenant.executorBearer("alice");
        io.restassured.RestAssured.given().header("Authorization", "Bearer " + bearer)
                .get("/api/actions/{id}", edit.actionId).then().statusCode(200)
                .body("targetBefore.description", equalTo("flat white"))
                .body("diff.field", org.hamcrest.Matchers.contains("amount", "category"))
                .body("diff.before", org.hamcrest.Matchers.contains("3.50", "coffee"))
                .body("diff.after", org.hamcrest.Matchers.contains("4.00", "tea"));

        // Someone changes the row around the application after the person saw the card, even setting the version
        // back: the database moves it on by itself.
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate(
                    "UPDATE transactions SET amount = 9.99, version = version WHERE id = '" + coffee + "'");
        }

        confirm(edit).statusCode(409).body("code", equalTo("target_changed"));
        assertThat(Db.status(edit.actionId)).isEqualTo("failed");
        assertThat(Db.text("SELECT amount || ' ' || category FROM transactions WHERE id = ?", coffee))
                .isEqualTo("9.99 coffee");
        // The write sent with its COMMIT was refused and that transaction kept nothing; the decision taken again
        // recorded one confirmation, one failure and one failure event.
        assertThat(Db.text("SELECT string_agg(to_status || '/' || coalesce(reason, ''), ' ' ORDER BY id)"
                + " FROM action_history WHERE action_id = ?", edit.actionId))
                .isEqualTo("proposed/ confirmed/ failed/target_changed");
        assertThat(Db.count("SELECT count(*) FROM outbox WHERE message_key = ? AND payload LIKE '%ActionFailed%'",
                edit.actionId.toString())).isOne();
    }

    @Test
    void aRenameOfAWalletRenamedSinceStagingFailsClosed() throws Exception {
        var rename = staged(ShippedKinds.RENAME_WALLET, params().put("walletId", tenant.wallet().toString())
                .put("name", "Everyday"));
        var other = staged(ShippedKinds.RENAME_WALLET, params().put("walletId", tenant.wallet().toString())
                .put("name", "Daily"));

        confirm(other).statusCode(200).body("status", equalTo("executed"));
        confirm(rename).statusCode(409).body("code", equalTo("target_changed"));

        assertThat(Db.text("SELECT name FROM wallets WHERE id = ?", tenant.wallet())).isEqualTo("Daily");
    }

    @Test
    void anEditOfATransactionThatDoesNotExistIsRejectedAtStaging() throws Exception {
        var edit = new ProposalMother(tenant, ShippedKinds.EDIT_TRANSACTION, params()
                .put("transactionId", UUID.randomUUID().toString()).put("amount", "1.00"));
        edit.send(kafka);

        assertThat(kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(edit.actionId.toString())))
                .singleElement().asString().contains("target_not_found");
        assertThat(Db.count("SELECT count(*) FROM actions WHERE id = ?", edit.actionId)).isZero();
    }

    @Test
    void theSnapshotAnActionWasStagedAgainstCannotBeRewrittenEvenByTheServicesRole() throws Exception {
        UUID coffee = transaction("3.50", "coffee", "flat white");
        var edit = staged(ShippedKinds.EDIT_TRANSACTION, params().put("transactionId", coffee.toString())
                .put("amount", "4.00"));

        Db.refusedAsApplication(tenant.id(), "23514",
                "UPDATE actions SET target_version = target_version + 1 WHERE id = '" + edit.actionId + "'",
                "UPDATE actions SET target_before = '{\"amount\": \"4.00\"}' WHERE id = '" + edit.actionId + "'");
    }

    @Test
    void theDatabaseAllowsOneActivePlanPerUserWhateverTheApplicationDoes() throws Exception {
        tenant.plan("alice", "active");
        UUID second = tenant.plan("alice", "draft");

        try (var owner = Db.owner()) {
            assertThatThrownBy(() -> owner.createStatement()
                    .executeUpdate(
                            "UPDATE training_plans SET status = 'active', activated_by = user_id, activated_at = now() WHERE id = '"
                                    + second + "'"))
                    .isInstanceOfSatisfying(SQLException.class,
                            e -> assertThat(e.getSQLState()).isEqualTo("23505"));
        }
    }

    @Test
    void anEmailToACaseThatDoesNotExistIsRejectedAtStaging() throws Exception {
        var mail = new ProposalMother(tenant, ShippedKinds.SEND_MAIL, params()
                .put("caseId", UUID.randomUUID().toString()).put("subject", "Hi").put("body", "Hello"));
        mail.send(kafka);

        var rejected = kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(mail.actionId.toString()));
        assertThat(rejected).singleElement().asString().contains("ActionRejected").contains("target_not_found")
                .contains("support case");
        assertThat(Db.count("SELECT count(*) FROM actions WHERE id = ?", mail.actionId)).isZero();
    }
}
