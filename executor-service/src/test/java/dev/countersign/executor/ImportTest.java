package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.json.Json;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/** Imported bank lines: stored unconfirmed, all or nothing, until a person confirms them. */
@QuarkusTest
@ExecutorTestResources
class ImportTest {

    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    private ValidatableResponse upload(Object wallet, String csv) {
        return given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).contentType("text/csv")
                .queryParam("wallet", wallet).body(csv).post("/api/actions/imports").then();
    }

    private int rows(String condition) throws Exception {
        return Db.count("SELECT count(*) FROM transactions WHERE tenant_id = ? AND " + condition, tenant.id());
    }

    @Test
    void linesAreStoredUnconfirmedUntilAPersonConfirmsThem() throws Exception {
        List<String> ids = upload(tenant.wallet(), "date,amount,category,description\n2026-11-02,3.20,coffee,"
                + "Cafe Nero\r\n2026-11-03,41.5,groceries,\n").statusCode(200).body("transactionIds", hasSize(2))
                .extract().jsonPath().getList("transactionIds", String.class);

        assertThat(rows("unconfirmed AND imported_by = 'alice'")).isEqualTo(2);
        given().header("Authorization", "Bearer " + tenant.executorBearer("bob")).get("/api/actions/imports").then()
                .statusCode(200).body("amount", org.hamcrest.Matchers.contains("3.20", "41.50"))
                .body("description[0]", equalTo("Cafe Nero"));
        assertThat(Db.text("SELECT amount::text FROM transactions WHERE id = ?::uuid", ids.get(1)))
                .isEqualTo("41.50");

        var confirm = given().header("Authorization", "Bearer " + tenant.executorBearer("alice"))
                .contentType("application/json").body(Json.write(Map.of("transactionIds", ids)));
        confirm.post("/api/actions/imports/confirm").then().statusCode(200).body(equalTo("2"));
        assertThat(rows("unconfirmed")).isZero();
        assertThat(rows("import_confirmed_by = 'alice'")).isEqualTo(2);
        given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).contentType("application/json")
                .body(Json.write(Map.of("transactionIds", ids))).post("/api/actions/imports/confirm").then()
                .statusCode(200).body(equalTo("0"));
    }

    @Test
    void oneBadLineImportsNothingAndNamesEveryBadLine() throws Exception {
        upload(tenant.wallet(), "2026-11-02,3.20,coffee\nyesterday,3.20,coffee\n2026-11-02,-4,tea,x\n")
                .statusCode(400).contentType("application/problem+json").body("code", equalTo("validation_failed"))
                .body("violations.field", hasItem("line 2")).body("violations.field", hasItem("line 3"));

        assertThat(rows("true")).isZero();
    }

    @Test
    void aFileOverTheLimitIsRefusedBeforeAnyLineIsCheckedAndProblemsAreCapped() throws Exception {
        upload(tenant.wallet(), "2026-11-02,1,coffee\n".repeat(1001)).statusCode(400)
                .body("violations[0].message", equalTo("has more than 1000 lines"));
        upload(tenant.wallet(), "bad\n".repeat(30)).statusCode(400).body("violations", hasSize(21))
                .body("violations[20].message", equalTo("and 10 more problems"));

        assertThat(rows("true")).isZero();
    }

    @Test
    void theDatabaseLetsAnImportOnlyBeConfirmedNeverUnconfirmedAndAlwaysSaysByWhom() throws Exception {
        String id = upload(tenant.wallet(), "2026-11-02,3.20,coffee\n").statusCode(200).extract().jsonPath()
                .getString("transactionIds[0]");

        Db.refusedAsApplication(tenant.id(), "23514",
                "UPDATE transactions SET unconfirmed = false WHERE id = '" + id + "'");
        given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).contentType("application/json")
                .body(Json.write(Map.of("transactionIds", List.of(id)))).post("/api/actions/imports/confirm").then()
                .statusCode(200).body(equalTo("1"));
        Db.refusedAsApplication(tenant.id(), "23514",
                "UPDATE transactions SET unconfirmed = true WHERE id = '" + id + "'");
    }

    @Test
    void anotherTenantsWalletIsNotFoundAndNothingIsWritten() throws Exception {
        TestTenant other = TestTenant.withCheckingWallet();

        upload(other.wallet(), "2026-11-02,3.20,coffee\n").statusCode(404).body("code", equalTo("not_found"));
        upload(UUID.randomUUID(), "2026-11-02,3.20,coffee\n").statusCode(404);

        assertThat(Db.count("SELECT count(*) FROM transactions WHERE wallet_id = ?", other.wallet())).isZero();
    }

    @Test
    void aBankExportIsStoredAsItsUploaderDeclaredItAndItsMoneyInIsSkippedByLine() throws Exception {
        byte[] export = """
                Buchungstag;Verwendungszweck;Soll;Haben\r
                01.12.2026;"Bäckerei Müller; Filiale 3";1.004,85;\r
                02.12.2026;Gehalt;;3.250,00\r
                """.getBytes(java.nio.charset.Charset.forName("windows-1252"));

        given().header("Authorization", "Bearer " + tenant.executorBearer("alice"))
                .contentType("text/csv; charset=windows-1252; header=present").queryParam("wallet", tenant.wallet())
                .queryParam("delimiter", ";").queryParam("decimal", ",").queryParam("dateFormat", "dd.MM.yyyy")
                .queryParam("dateColumn", "Buchungstag").queryParam("debitColumn", "Soll")
                .queryParam("creditColumn", "Haben").queryParam("descriptionColumn", "Verwendungszweck")
                .queryParam("category", "groceries").body(export).post("/api/actions/imports").then().statusCode(200)
                .body("transactionIds", hasSize(1)).body("skipped[0].line", equalTo(3));

        assertThat(Db.text("SELECT occurred_on || ' ' || amount || ' ' || category || ' ' || description FROM"
                + " transactions WHERE tenant_id = ? AND unconfirmed", tenant.id()))
                .isEqualTo("2026-12-01 1004.85 groceries Bäckerei Müller; Filiale 3");
    }

    @Test
    void aDeclarationThatCannotBeReadOrACharsetThatIsNotSupportedImportsNothing() throws Exception {
        given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).contentType("text/csv")
                .queryParam("wallet", tenant.wallet()).queryParam("dateformat", "dd/MM/yyyy")
                .body("01/02/2026,3.20,coffee\n").post("/api/actions/imports").then().statusCode(400)
                .contentType("application/problem+json").body("code", equalTo("validation_failed"))
                .body("violations[0].field", equalTo("dateformat"));
        given().header("Authorization", "Bearer " + tenant.executorBearer("alice"))
                .contentType("text/csv; charset=utf-16").queryParam("wallet", tenant.wallet())
                .body("2026-11-02,3.20,coffee\n".getBytes(java.nio.charset.StandardCharsets.UTF_16))
                .post("/api/actions/imports").then().statusCode(415).body("code", equalTo("unsupported_request"));
        upload(tenant.wallet(), "date,credit,category\n2026-11-02,3.20,coffee\n").statusCode(400)
                .body("violations[0].message", org.hamcrest.Matchers.containsString("no debit column"));

        assertThat(rows("true")).isZero();
    }

    @Test
    void aConfirmOrRejectThatNamesNoRowsIsRefusedByField() {
        for (String path : List.of("/api/actions/imports/confirm", "/api/actions/imports/reject")) {
            given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).contentType("application/json")
                    .body("{\"transactionIds\": [null]}").post(path).then().statusCode(400)
                    .contentType("application/problem+json").body("code", equalTo("validation_failed"))
                    .body("violations.field", org.hamcrest.Matchers.contains("transactionIds[0]"));
            given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).contentType("application/json")
                    .body("{\"transactionIds\": []}").post(path).then().statusCode(400)
                    .body("violations[0].message", equalTo("must name 1 to 1000 rows"));
            given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).contentType("application/json")
                    .body("{}").post(path).then().statusCode(400)
                    .body("violations[0].message", equalTo("must name 1 to 1000 rows"));
        }
    }

    @Test
    void anImportThatNamesNoWalletIsRefusedAsIncomplete() throws Exception {
        given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).contentType("text/csv")
                .body("2026-11-02,3.20,coffee\n").post("/api/actions/imports").then().statusCode(400)
                .contentType("application/problem+json").body("code", equalTo("validation_failed"))
                .body("detail", org.hamcrest.Matchers.containsString("wallet"));
        assertThat(rows("true")).isZero();
    }
}
