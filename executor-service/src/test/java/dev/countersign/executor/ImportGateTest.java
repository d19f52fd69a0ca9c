package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.catalogue.TierPolicy;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.TestProperties;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/**
 * Imports go through the gate (issue 16, section 4): only into the importer's own wallet, amounts bounded per row, HIGH
 * rows confirmed by another person where the tenant's approval policy asks for it, a trail of every import and
 * confirmation, and the database refusing the same moves around the application.
 */
@QuarkusTest
@ExecutorTestResources
class ImportGateTest {

    /** The default threshold: an amount at it is HIGH, one cent below LOW. */
    private static final String HIGH = TierPolicy.DEFAULT.highImpactThreshold().toPlainString();
    private static final String LOW = TierPolicy.DEFAULT.highImpactThreshold().subtract(new BigDecimal("0.01"))
            .toPlainString();

    private TestTenant tenant;
    private UUID bobsWallet;

    @BeforeEach
    void aTenantWithTwoUsersWallets() throws Exception {
        tenant = TestTenant.withCheckingWallet();
        try (var owner = Db.owner()) {
            bobsWallet = DemoData.createWallet(owner, tenant.id(), "bob", "Bob's", "EUR");
        }
    }

    private ValidatableResponse upload(String user, Object wallet, String csv) {
        return given().header("Authorization", "Bearer " + tenant.executorBearer(user)).contentType("text/csv")
                .queryParam("wallet", wallet).body(csv).post("/api/actions/imports").then();
    }

    private List<String> imported(String csv) {
        return upload("alice", tenant.wallet(), csv).statusCode(200).extract().jsonPath().getList("transactionIds",
                String.class);
    }

    private ValidatableResponse confirm(String user, List<String> ids) {
        return given().header("Authorization", "Bearer " + tenant.executorBearer(user))
                .contentType("application/json").body(Json.write(Map.of("transactionIds", ids)))
                .post("/api/actions/imports/confirm").then();
    }

    private void otherApproverPolicy() {
        approvalPolicy(1, true);
    }

    private void approvalPolicy(int approvals, boolean needsOther) {
        TenantPolicies.set(tenant.id(), "approvals",
                "{\"highApprovals\":" + approvals + ",\"highNeedsOtherApprover\":" + needsOther + "}");
    }

    private int rows(String condition) throws Exception {
        return Db.count("SELECT count(*) FROM transactions WHERE tenant_id = ? AND " + condition, tenant.id());
    }

    private int trail(String condition) throws Exception {
        return Db.count("SELECT count(*) FROM import_history WHERE tenant_id = ? AND " + condition, tenant.id());
    }

    @Test
    void importingIntoAColleaguesWalletIsRefusedEvenForAnAdminAndWritesNothing() throws Exception {
        // alice's token carries the admin group too: an administrator imports only into a wallet of their own.
        upload("alice", bobsWallet, "2026-11-02,3.20,coffee\n").statusCode(403)
                .contentType("application/problem+json").body("code", equalTo("wallet_not_owned"));

        assertThat(rows("true")).isZero();
        assertThat(trail("true")).isZero();
        upload("bob", bobsWallet, "2026-11-02,3.20,coffee\n").statusCode(200);
        assertThat(rows("wallet_id = '" + bobsWallet + "' AND imported_by = 'bob'")).isEqualTo(1);
    }

    @Test
    void aRowOfTenMillionRefusesTheWholeFileWithItsLineNumber() throws Exception {
        upload("alice", tenant.wallet(), "date,amount,category\n2026-11-02,3.20,coffee\n2026-11-03,10000000.00,other\n")
                .statusCode(400).body("code", equalTo("validation_failed"))
                .body("violations.field", contains("line 3"));
        upload("alice", tenant.wallet(), "2026-11-03,100000.01,other\n").statusCode(400)
                .body("violations[0].message", equalTo("amount: must be at most 100000.00 in an import; ask the"
                        + " assistant to record a larger expense, for a person to confirm"));

        assertThat(rows("true")).isZero();
        assertThat(trail("true")).isZero();
        imported("2026-11-03,100000.00,rent\n");
        assertThat(rows("amount = 100000.00")).isEqualTo(1);
    }

    @Test
    void underTheOtherApproverPolicyTheImporterCannotConfirmAHighRowAndAColleagueCan() throws Exception {
        otherApproverPolicy();
        List<String> ids = imported("2026-11-02,%s,rent\n2026-11-03,%s,groceries\n".formatted(HIGH, LOW));
        String high = ids.get(0);
        String low = ids.get(1);
        given().header("Authorization", "Bearer " + tenant.executorBearer("bob")).get("/api/actions/imports").then()
                .statusCode(200).body("tier", contains("high", "low"))
                .body("walletName", contains("Checking", "Checking"));

        confirm("alice", ids).statusCode(403).contentType("application/problem+json")
                .body("code", equalTo("approver_not_allowed")).body("violations", hasSize(1))
                .body("violations.field", hasItem("transaction " + high));
        assertThat(rows("unconfirmed")).isEqualTo(2);

        confirm("alice", List.of(low)).statusCode(200).body(equalTo("1"));
        confirm("bob", List.of(high)).statusCode(200).body(equalTo("1"));
        assertThat(rows("unconfirmed")).isZero();
        assertThat(rows("id = '" + high + "' AND import_confirmed_by = 'bob'")).isEqualTo(1);
    }

    @Test
    void underATwoApproverPolicyAHighRowIsConfirmedByItsSecondApproverOtherThanTheImporter() throws Exception {
        approvalPolicy(2, true);
        List<String> ids = imported("2026-11-02,%s,rent\n2026-11-03,%s,groceries\n".formatted(HIGH, LOW));
        String high = ids.get(0);

        confirm("bob", ids).statusCode(200).body(equalTo("1"));
        confirm("bob", List.of(high)).statusCode(200).body(equalTo("0"));
        assertThat(rows("unconfirmed")).isEqualTo(1);
        given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).get("/api/actions/imports").then()
                .statusCode(200).body("approvers[0]", contains("bob"));
        confirm("alice", List.of(high)).statusCode(403).body("code", equalTo("approver_not_allowed"));

        confirm("carol", List.of(high)).statusCode(200).body(equalTo("1"));
        assertThat(rows("id = '" + high + "' AND NOT unconfirmed AND import_confirmed_by = 'carol'")).isEqualTo(1);
        given().header("Authorization", "Bearer " + tenant.executorBearer("alice"))
                .get("/api/actions/imports/{id}/history", high).then().statusCode(200)
                .body("event", contains("imported", "approved", "approved", "confirmed"))
                .body("actor", contains("alice", "bob", "carol", "carol"));
    }

    @Test
    void theDatabaseConfirmsAHighRowUnderATwoApproverPolicyOnlyWithTwoCountedApprovals() throws Exception {
        approvalPolicy(2, true);
        String high = imported("2026-11-02,%s,rent\n".formatted(HIGH)).get(0);
        String confirmByBob = "UPDATE transactions SET unconfirmed = false, import_confirmed_by = 'bob' WHERE id = '"
                + high + "'";
        String approval = "INSERT INTO import_approvals (transaction_id, tenant_id, approver, channel) VALUES ('"
                + high + "', '" + tenant.id() + "', '%s', 'sql')";

        try (var app = Db.application()) {
            app.setAutoCommit(false);
            Db.enterTenant(app, tenant.id());
            app.createStatement().executeUpdate(approval.formatted("alice"));
            app.createStatement().executeUpdate(approval.formatted("bob"));
            app.commit();
        }
        // alice's approval is not counted: she imported the row.
        Db.refusedAsApplication(tenant.id(), "23514", confirmByBob);
        try (var app = Db.application()) {
            app.setAutoCommit(false);
            Db.enterTenant(app, tenant.id());
            app.createStatement().executeUpdate(approval.formatted("carol"));
            assertThat(app.createStatement().executeUpdate(confirmByBob)).isEqualTo(1);
            app.commit();
        }
        Db.refusedAsApplication(tenant.id(), "42501",
                "UPDATE import_approvals SET approver = 'mallory'", "DELETE FROM import_approvals");
    }

    @Test
    void withoutThePolicyTheImporterStillConfirmsTheirOwnHighRow() throws Exception {
        List<String> ids = imported("2026-11-02,%s,rent\n".formatted(HIGH));

        confirm("alice", ids).statusCode(200).body(equalTo("1"));
    }

    @Test
    void everyImportAndConfirmationLeavesWhoWhenAndTheTierInTheTrail() throws Exception {
        otherApproverPolicy();
        List<String> ids = imported("2026-11-02,%s,rent\n2026-11-03,%s,groceries\n".formatted(HIGH, LOW));
        confirm("alice", List.of(ids.get(1))).statusCode(200);
        confirm("bob", List.of(ids.get(0))).statusCode(200);

        assertThat(trail("event = 'imported' AND actor = 'alice' AND channel = 'http' AND wallet_id = '"
                + tenant.wallet() + "'")).isEqualTo(2);
        given().header("Authorization", "Bearer " + tenant.executorBearer("carol"))
                .get("/api/actions/imports/{id}/history", ids.get(0)).then().statusCode(200)
                .body("event", contains("imported", "confirmed")).body("actor", contains("alice", "bob"))
                .body("tier", contains("high", "high")).body("amount", contains(HIGH, HIGH))
                .body("at", hasSize(2));
        given().header("Authorization", "Bearer " + tenant.executorBearer("carol"))
                .get("/api/actions/imports/{id}/history", ids.get(1)).then().statusCode(200)
                .body("actor", contains("alice", "alice")).body("tier", contains("low", "low"));
        given().header("Authorization", "Bearer " + TestTenant.withCheckingWallet().executorBearer("alice"))
                .get("/api/actions/imports/{id}/history", ids.get(0)).then().statusCode(404);
    }

    @Test
    void theTrailFollowsTheTenantsThreshold() throws Exception {
        given().contentType("application/json").header("Authorization", "Bearer " + tenant.executorBearer("admin"))
                .body("{\"highImpactThreshold\":\"100.00\"}").put("/api/actions/policy/tiers").then()
                .statusCode(200);
        otherApproverPolicy();
        List<String> ids = imported("2026-11-02,100.00,groceries\n2026-11-02,99.99,groceries\n");

        assertThat(trail("tier = 'high' AND transaction_id = '" + ids.get(0) + "'")).isEqualTo(1);
        assertThat(trail("tier = 'low' AND transaction_id = '" + ids.get(1) + "'")).isEqualTo(1);
        confirm("alice", List.of(ids.get(0))).statusCode(403).body("code", equalTo("approver_not_allowed"));
    }

    @Test
    void theDatabaseRefusesTheImporterConfirmingAHighRowUnderThePolicyAroundTheApplication() throws Exception {
        otherApproverPolicy();
        List<String> ids = imported("2026-11-02,%s,rent\n2026-11-03,%s,groceries\n".formatted(HIGH, LOW));

        Db.refusedAsApplication(tenant.id(), "23514", "UPDATE transactions SET unconfirmed = false,"
                + " import_confirmed_by = 'alice' WHERE id = '" + ids.get(0) + "'");
        try (var app = Db.application()) {
            app.setAutoCommit(false);
            Db.enterTenant(app, tenant.id());
            assertThat(app.createStatement().executeUpdate("UPDATE transactions SET unconfirmed = false,"
                    + " import_confirmed_by = 'alice' WHERE id = '" + ids.get(1) + "'")).isEqualTo(1);
            assertThat(app.createStatement().executeUpdate("UPDATE transactions SET unconfirmed = false,"
                    + " import_confirmed_by = 'bob' WHERE id = '" + ids.get(0) + "'")).isEqualTo(1);
            app.commit();
        }
        assertThat(trail("event = 'confirmed' AND channel = 'sql'")).isEqualTo(2);
        assertThat(trail("event = 'confirmed' AND actor = 'bob' AND tier = 'high'")).isEqualTo(1);
    }

    @Test
    void theDatabaseRefusesAnImportIntoAColleaguesWalletAndRewritingWhoConfirmed() throws Exception {
        List<String> ids = imported("2026-11-02,3.20,coffee\n");
        confirm("alice", ids).statusCode(200);

        Db.refusedAsApplication(tenant.id(), "23514",
                "INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, occurred_on, unconfirmed,"
                        + " imported_by) VALUES (gen_random_uuid(), '" + tenant.id() + "', '" + bobsWallet
                        + "', 5.00, 'coffee', current_date, true, 'alice')",
                "INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, occurred_on, unconfirmed,"
                        + " imported_by, import_confirmed_by) VALUES (gen_random_uuid(), '" + tenant.id() + "', '"
                        + tenant.wallet() + "', 5.00, 'coffee', current_date, false, 'alice', 'bob')",
                "UPDATE transactions SET import_confirmed_by = 'bob' WHERE id = '" + ids.get(0) + "'");
        // A HIGH row made LOW in the statement that confirms it: what was imported is what gets confirmed.
        String high = imported("2026-11-02,900.00,rent\n").get(0);
        Db.refusedAsApplication(tenant.id(), "23514", "UPDATE transactions SET amount = 1.00, unconfirmed = false,"
                + " import_confirmed_by = 'alice' WHERE id = '" + high + "'");
    }

    private ValidatableResponse reject(String bearer, List<String> ids) {
        return given().header("Authorization", "Bearer " + bearer).contentType("application/json")
                .body(Json.write(Map.of("transactionIds", ids))).post("/api/actions/imports/reject").then();
    }

    @Test
    void rejectedRowsLeaveTheBooksAndTheReviewListNamingWhoByTheImporterOrAnApproverOnly() throws Exception {
        List<String> ids = imported("2026-11-02,3.20,coffee\n2026-11-03,4.10,lunch\n2026-11-04,5.00,cinema\n");
        String dave = TestProperties.executorBearerWithoutApproval(tenant.id(), "dave");

        // A colleague who neither imported them nor approves: refused, nothing rejected.
        reject(dave, ids).statusCode(403).contentType("application/problem+json").body("code", equalTo("forbidden"))
                .body("violations", hasSize(3));
        assertThat(rows("unconfirmed AND deleted_at IS NULL")).isEqualTo(3);

        // The importer, without the approver role, rejects two; an approver the third.
        String aliceWithoutApproval = TestProperties.executorBearerWithoutApproval(tenant.id(), "alice");
        reject(aliceWithoutApproval, ids.subList(0, 2)).statusCode(200).body(equalTo("2"));
        reject(tenant.executorBearer("bob"), ids).statusCode(200).body(equalTo("1"));

        assertThat(rows("deleted_at IS NOT NULL AND unconfirmed AND import_rejected_by IS NOT NULL")).isEqualTo(3);
        given().header("Authorization", "Bearer " + tenant.executorBearer("bob")).get("/api/actions/imports").then()
                .statusCode(200).body("$", hasSize(0));
        assertThat(trail("event = 'rejected' AND actor = 'alice'")).isEqualTo(2);
        assertThat(trail("event = 'rejected' AND actor = 'bob'")).isEqualTo(1);
        // Rejected is final: confirming finds nothing waiting.
        confirm("bob", ids).statusCode(200).body(equalTo("0"));
        assertThat(rows("NOT unconfirmed")).isZero();
    }

    @Test
    void theDatabaseLetsAnUnconfirmedRowGoOnlyByConfirmingOrRejectingItAndNeverConfirmsARejectedOne()
            throws Exception {
        List<String> ids = imported("2026-11-02,3.20,coffee\n2026-11-03,4.10,lunch\n");
        String pending = ids.get(0);
        String rejected = ids.get(1);
        reject(tenant.executorBearer("alice"), List.of(rejected)).statusCode(200);

        Db.refusedAsApplication(tenant.id(), "23514",
                // removed without naming who rejected it
                "UPDATE transactions SET deleted_at = now() WHERE id = '" + pending + "'",
                // a rejecter named without removing it
                "UPDATE transactions SET import_rejected_by = 'bob' WHERE id = '" + pending + "'",
                // imported already rejected
                "INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, occurred_on, unconfirmed,"
                        + " imported_by, import_rejected_by) VALUES (gen_random_uuid(), '" + tenant.id() + "', '"
                        + tenant.wallet() + "', 5.00, 'coffee', current_date, true, 'alice', 'alice')",
                // who rejected rewritten, the rejected row confirmed, or brought back
                "UPDATE transactions SET import_rejected_by = 'mallory' WHERE id = '" + rejected + "'",
                "UPDATE transactions SET unconfirmed = false, import_confirmed_by = 'bob' WHERE id = '" + rejected
                        + "'",
                "UPDATE transactions SET deleted_at = NULL WHERE id = '" + rejected + "'",
                // a rejection that also changes the amount
                "UPDATE transactions SET deleted_at = now(), import_rejected_by = 'alice', amount = 1.00 WHERE id = '"
                        + pending + "'");
        assertThat(rows("id = '" + pending + "' AND unconfirmed AND deleted_at IS NULL")).isEqualTo(1);
    }

    @Test
    void theTrailIsAppendOnlyAndTheApplicationRoleCannotWriteIt() throws Exception {
        String id = imported("2026-11-02,3.20,coffee\n").get(0);

        Db.refusedAsApplication(tenant.id(), "42501",
                "INSERT INTO import_history (transaction_id, tenant_id, wallet_id, event, actor, channel, amount,"
                        + " tier) VALUES ('" + id + "', '" + tenant.id() + "', '" + tenant.wallet()
                        + "', 'confirmed', 'bob', 'http', 3.20, 'low')",
                "UPDATE import_history SET actor = 'mallory'",
                "DELETE FROM import_history",
                "TRUNCATE import_history");
        try (var owner = Db.owner()) {
            for (String erase : new String[]{"UPDATE import_history SET actor = 'mallory' WHERE transaction_id = '"
                    + id + "'", "DELETE FROM import_history WHERE transaction_id = '" + id + "'"}) {
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> owner.createStatement().executeUpdate(erase))
                        .as(erase).isInstanceOfSatisfying(java.sql.SQLException.class,
                                e -> assertThat(e.getSQLState()).isEqualTo("23514"));
            }
        }
        assertThat(trail("actor = 'alice'")).isEqualTo(1);
    }
}
