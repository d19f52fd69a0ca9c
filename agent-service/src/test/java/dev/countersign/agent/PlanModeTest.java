package dev.countersign.agent;

import static dev.countersign.agent.AgentFixtures.script;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.agent.planmode.SchemaGrounding;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.model.DemoModel;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.testing.TestProperties;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/**
 * Plan mode end to end: the server grounds the model from the catalog, the model (scripted, through the real client)
 * has no tools, the one reader decides the deliverable, the ledger records it, and the person may run a single SELECT
 * read-only in their tenant.
 */
@QuarkusTest
@AgentTestResources
class PlanModeTest {

    static final String BY_CATEGORY = """
            ```postgresql
            SELECT category, sum(amount) AS total FROM transactions GROUP BY category ORDER BY total DESC;
            ```
            Sums each category; row-level security keeps it to your rows.""";

    private AgentFixtures fixtures;

    /** Two relations the reader role may read without row-level security: one analysed, one never analysed. */
    @BeforeAll
    static void probeTables() throws Exception {
        try (Connection owner = TestProperties.ownerConnection(); Statement sql = owner.createStatement()) {
            sql.execute("CREATE TABLE IF NOT EXISTS plan_probe_rates (code text PRIMARY KEY, kind text)");
            sql.execute("CREATE TABLE IF NOT EXISTS plan_probe_unanalysed (x integer)");
            sql.execute("GRANT SELECT ON plan_probe_rates, plan_probe_unanalysed TO " + LocalPostgres.READER_ROLE + ", "
                    + LocalPostgres.PLAN_ROLE);
            sql.execute("INSERT INTO plan_probe_rates SELECT 'c' || i, CASE WHEN i % 4 = 0 THEN NULL ELSE 'k' || i % 3"
                    + " END FROM generate_series(1, 200) i ON CONFLICT DO NOTHING");
            sql.execute("ANALYZE plan_probe_rates");
        }
    }

    @BeforeEach
    void freshTenant() throws Exception {
        fixtures = new AgentFixtures();
    }

    static ValidatableResponse plan(AgentFixtures fixtures, String conversation, String text) {
        return given().contentType("application/json").header("Authorization", "Bearer " + fixtures.bearer)
                .body(Json.write(Json.mapper().createObjectNode().put("text", text).put("mode", "plan")))
                .post("/api/conversations/{id}/messages", conversation).then();
    }

    static ValidatableResponse run(AgentFixtures fixtures, String conversation, String turnId, String query) {
        return given().header("Authorization", "Bearer " + fixtures.bearer)
                .post("/api/conversations/{id}/plans/{turn}/run" + query, conversation, turnId).then();
    }

    static List<String> ledgerTypes(String tenant, String turnId) throws Exception {
        List<String> types = new ArrayList<>();
        try (Connection owner = TestProperties.ownerConnection();
                var query = owner.prepareStatement("SELECT type FROM conversation_events WHERE tenant_id = ?"
                        + " AND turn_id = ?::uuid ORDER BY position")) {
            query.setString(1, tenant);
            query.setString(2, turnId);
            ResultSet rows = query.executeQuery();
            while (rows.next()) {
                types.add(rows.getString(1));
            }
        }
        return types;
    }

    @Test
    void aStatementIsDraftedFromACatalogGroundedToollessModelRecordedAndRunReadOnlyInTheTenant() throws Exception {
        fixtures.transaction(fixtures.checking, "12.50", "coffee", "flat white", LocalDate.now());
        fixtures.transaction(fixtures.savings, "2.50", "coffee", null, LocalDate.now());
        AgentFixtures other = new AgentFixtures();
        other.transaction(other.checking, "999.00", "rent", null, LocalDate.now());
        ScriptedModel.use(script(ModelReply.text(BY_CATEGORY)));

        String turnId = plan(fixtures, "c-plan", "which categories cost me most?").statusCode(200)
                .body("mode", equalTo("plan")).body("verdict", equalTo("statement"))
                .body("deliverable.type", equalTo("PlanStatementDrafted"))
                .body("deliverable.dialect", equalTo("postgresql"))
                .body("deliverable.guard.singleSelect", equalTo(true))
                .body("deliverable.validation.unknownTables", hasSize(0))
                .body("deliverable.rationale", containsString("Sums each category"))
                .body("recorded", equalTo(true))
                .extract().jsonPath().getString("turnId");

        JsonNode request = ScriptedModel.requests().get(0);
        assertThat(request.path("tools").size()).as("the model is offered no tools").isZero();
        String system = request.path("messages").get(0).path("content").asText();
        assertThat(system).contains("NO STATEMENT:").contains("```postgresql")
                .contains("relation public.transactions - rows:").contains("amount numeric(14,2) not null")
                // Per-user tables are never offered: row-level security separates tenants, not users.
                .doesNotContain("relation public.actions").doesNotContain("conversation_events")
                .doesNotContain("training_plans").doesNotContain("token_hash")
                .contains("code text not null [nulls ~0.0% (estimate); distinct values ~200 (estimate, derived:"
                        + " 100.0% of the row estimate)]")
                .contains("kind text [nulls ~25.0% (estimate); distinct values ~3 (estimate)]")
                .contains("relation public.plan_probe_unanalysed - rows: UNKNOWN (never analysed")
                .doesNotContain("k1").doesNotContain("'c1'");
        // Under row-level security keyed on the tenant: the tenant's own estimate, or unknown while the table has no
        // statistics (PlanStatisticsTest has the numbers); no longer withheld.
        String transactions = system.substring(system.indexOf("relation public.transactions - rows:"));
        transactions = transactions.substring(0, transactions.indexOf("\nrelation public.wallets"));
        assertThat(transactions).containsPattern("^relation public\\.transactions - rows: (about \\d+ of your tenant's"
                + " rows \\(planner estimate, not a count\\)|UNKNOWN \\(no statistics for your tenant's rows)")
                .doesNotContain("withheld").doesNotContain("(no column statistics");
        assertThat(ledgerTypes(fixtures.tenant, turnId)).containsExactly("PlanStatementDrafted", "TurnRecorded");

        given().header("Authorization", "Bearer " + fixtures.bearer)
                .get("/api/conversations/{id}/plans/{turn}", "c-plan", turnId).then().statusCode(200)
                .body("type", equalTo("PlanStatementDrafted")).body("sql", containsString("sum(amount)"));
        run(fixtures, "c-plan", turnId, "").statusCode(200)
                .body("columns", equalTo(List.of("category", "total")))
                .body("rows", hasSize(1)).body("rows[0][0]", equalTo("coffee")).body("rows[0][1]", equalTo("15.00"))
                .body("hasMore", equalTo(false));
        // Another user of the same id, and another tenant, have no such plan turn.
        given().header("Authorization", "Bearer " + other.bearer)
                .post("/api/conversations/{id}/plans/{turn}/run", "c-plan", turnId).then().statusCode(404)
                .body("code", equalTo("not_found"));
    }

    @Test
    void resultsArePagedAndCapped() throws Exception {
        for (int i = 1; i <= 5; i++) {
            fixtures.transaction(fixtures.checking, i + ".00", "food", null, LocalDate.now());
        }
        ScriptedModel.use(script(ModelReply.text(
                "```postgresql\nSELECT amount FROM transactions ORDER BY amount\n```\nEvery amount, smallest first.")));
        String turnId = plan(fixtures, "c-pages", "list amounts").statusCode(200).extract().jsonPath()
                .getString("turnId");

        run(fixtures, "c-pages", turnId, "?pageSize=2").statusCode(200).body("rows", hasSize(2))
                .body("rows[0][0]", equalTo("1.00")).body("hasMore", equalTo(true));
        run(fixtures, "c-pages", turnId, "?pageSize=2&page=2").statusCode(200).body("rows", hasSize(1))
                .body("rows[0][0]", equalTo("5.00")).body("hasMore", equalTo(false));
        run(fixtures, "c-pages", turnId, "?pageSize=500").statusCode(400).body("code", equalTo("validation_failed"));
        run(fixtures, "c-pages", turnId, "?pageSize=200&page=5").statusCode(400)
                .body("detail", containsString("Only the first 1000 rows"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "NO STATEMENT: the inventory has no table of film rentals. Which table records rentals?|refusal|PlanRefused",
            "NO STATEMENT:|shortfall|PlanFellShort",
            "First inspect the tables, then the columns, then join them and compare.|shortfall|PlanFellShort",
            "```mysql\\nSELECT category FROM transactions\\n```\\nLists categories.|shortfall|PlanFellShort"})
    void everyPlanTurnEndsInOneRecordedVerdict(String reply, String verdict, String type) throws Exception {
        ScriptedModel.use(script(ModelReply.text(reply.replace("\\n", "\n"))));

        String turnId = plan(fixtures, "c-verdict", "what were my most popular films?").statusCode(200)
                .body("verdict", equalTo(verdict)).body("deliverable.type", equalTo(type))
                .body("recorded", equalTo(true)).extract().jsonPath().getString("turnId");

        assertThat(ledgerTypes(fixtures.tenant, turnId)).containsExactly(type, "TurnRecorded");
        run(fixtures, "c-verdict", turnId, "").statusCode(400).body("detail", containsString("drafted no statement"));
    }

    @Test
    void anUnknownTableIsReportedAndNotRun() {
        ScriptedModel.use(script(ModelReply.text("```postgresql\nSELECT title FROM film\n```\nLists films.")));

        String turnId = plan(fixtures, "c-unknown", "popular films?").statusCode(200)
                .body("verdict", equalTo("shortfall")).body("deliverable.type", equalTo("PlanStatementDrafted"))
                .body("deliverable.validation.unknownTables", equalTo(List.of("film")))
                .extract().jsonPath().getString("turnId");

        run(fixtures, "c-unknown", turnId, "").statusCode(400)
                .body("detail", containsString("relation \"film\" does not exist"));
    }

    /** The tenant escape a deny-list let through: the setting row-level security reads, changed by the statement. */
    @Test
    void aStatementThatWouldChangeTheTenantSettingIsNeverRunAndAnotherUsersTableIsNotOffered() throws Exception {
        AgentFixtures victim = new AgentFixtures();
        victim.transaction(victim.checking, "777.00", "secret", null, LocalDate.now());
        ScriptedModel.use(script(ModelReply.text(("```postgresql\nSELECT t.* FROM (SELECT \"set_config\"("
                + "'countersign.tenant_id', '%s', true) AS v OFFSET 0) s, LATERAL (SELECT * FROM transactions"
                + " WHERE s.v IS NOT NULL) t\n```\nEvery transaction.").formatted(victim.tenant))));
        String escape = plan(fixtures, "c-escape", "all transactions").statusCode(200)
                .body("deliverable.guard.singleSelect", equalTo(false))
                .body("deliverable.guard.reason", containsString("set_config"))
                .extract().jsonPath().getString("turnId");
        run(fixtures, "c-escape", escape, "").statusCode(400)
                .body("detail", containsString("Not run here"))
                .body("detail", org.hamcrest.Matchers.not(containsString("777")));

        ScriptedModel.use(script(ModelReply.text(
                "```postgresql\nSELECT user_id, payload FROM conversation_events\n```\nEveryone's chats.")));
        String others = plan(fixtures, "c-others", "what did my colleagues ask?").statusCode(200)
                .body("verdict", equalTo("shortfall"))
                .body("deliverable.validation.unknownTables", equalTo(List.of("conversation_events")))
                .extract().jsonPath().getString("turnId");
        run(fixtures, "c-others", others, "").statusCode(400)
                .body("detail", containsString("conversation_events, not in your schema inventory"));
    }

    @Test
    void aWriteStatementIsClassifiedNotReadOnlyAndIsNeverRun() throws Exception {
        fixtures.transaction(fixtures.checking, "4.00", "coffee", null, LocalDate.now());
        ScriptedModel.use(script(ModelReply.text(
                "```postgresql\nDELETE FROM transactions WHERE category = 'coffee'\n```\nRemoves coffee.")));

        String turnId = plan(fixtures, "c-write", "forget my coffees").statusCode(200)
                .body("verdict", equalTo("statement")).body("deliverable.guard.singleSelect", equalTo(false))
                .body("deliverable.guard.reason", containsString("DELETE"))
                .extract().jsonPath().getString("turnId");

        run(fixtures, "c-write", turnId, "").statusCode(400)
                .body("detail", containsString("Not run here"));
        try (Connection owner = TestProperties.ownerConnection();
                var count = owner.prepareStatement(
                        "SELECT count(*) FROM transactions WHERE tenant_id = ? AND deleted_at IS NULL")) {
            count.setString(1, fixtures.tenant);
            ResultSet rows = count.executeQuery();
            rows.next();
            assertThat(rows.getInt(1)).isEqualTo(1);
        }
    }

    @Test
    void aRunIsStoppedByTheStatementTimeout() {
        // 200^4 rows to count: far more than the test profile's 1 s statement timeout allows.
        ScriptedModel.use(script(ModelReply.text("```postgresql\nSELECT count(*) FROM plan_probe_rates a,"
                + " plan_probe_rates b, plan_probe_rates c, plan_probe_rates d\n```\nCounts a lot.")));
        String turnId = plan(fixtures, "c-slow", "count").statusCode(200).body("deliverable.guard.singleSelect",
                equalTo(true)).extract().jsonPath().getString("turnId");

        run(fixtures, "c-slow", turnId, "").statusCode(400).body("detail", containsString("statement timeout"));
    }

    @Test
    void theOfflineDemoModelDraftsAStatementThatPassesTheReaderAndRunsOrRefuses() throws Exception {
        fixtures.transaction(fixtures.checking, "3.20", "coffee", null, LocalDate.now());
        ScriptedModel.use(new DemoModel());

        String turnId = plan(fixtures, "c-demo", "how much did I spend per category?").statusCode(200)
                .body("verdict", equalTo("statement")).body("deliverable.guard.singleSelect", equalTo(true))
                .body("deliverable.validation.unknownTables", hasSize(0))
                .body("deliverable.validation.unknownColumns", hasSize(0))
                .extract().jsonPath().getString("turnId");
        run(fixtures, "c-demo", turnId, "").statusCode(200)
                .body("rows[0]", equalTo(List.of("EUR", "coffee", "3.20", 1)));
        plan(fixtures, "c-demo", "which films are popular?").statusCode(200).body("verdict", equalTo("refusal"));
    }

    /**
     * The largest values a statement can still build: a string aggregate over a cartesian product (about 6 MB in one
     * cell), the same value in an error message (an invalid cast quotes its whole input), and a wide cartesian product.
     * PostgreSQL cuts every cell and every message before sending them and the page is read through a cursor, so what
     * the agent allocates while running them stays far below one such value (counted over every thread of this JVM, the
     * agent's included), and it keeps answering.
     */
    @Test
    void theWorstStatementsLeaveTheAgentsHeapBoundedAndItKeepsAnswering() throws Exception {
        for (int i = 0; i < 3; i++) {
            fixtures.transaction(fixtures.checking, (i + 1) + ".00", "category" + i, null, LocalDate.now());
        }
        String aggregate = "string_agg(x, ',') FROM (SELECT a.code || b.code || c.code AS x FROM plan_probe_rates a,"
                + " plan_probe_rates b, plan_probe_rates c LIMIT 500000) s";
        List<String> worst = List.of(
                "SELECT " + aggregate,
                "SELECT CAST(" + aggregate.replaceFirst(" FROM \\(", " AS integer) AS n FROM ("),
                "SELECT a.category AS a, b.category AS b, c.category AS c, d.amount AS d FROM transactions a,"
                        + " transactions b, transactions c, transactions d");
        List<String> turns = new ArrayList<>();
        for (String sql : worst) {
            ScriptedModel.use(script(ModelReply.text("```postgresql\n" + sql + "\n```\nA big one.")));
            turns.add(plan(fixtures, "c-worst", "something big").statusCode(200)
                    .body("deliverable.guard.singleSelect", equalTo(true)).extract().jsonPath().getString("turnId"));
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
                .getThreadMXBean();
        long before = allocated(threads);

        run(fixtures, "c-worst", turns.get(0), "").statusCode(200).body("truncatedCells", equalTo(true))
                .body("rows[0][0].length()", equalTo(1001));
        String refused = run(fixtures, "c-worst", turns.get(1), "").statusCode(400)
                .body("detail", containsString("invalid input syntax for type integer")).extract().asString();
        run(fixtures, "c-worst", turns.get(2), "?pageSize=200").statusCode(200).body("rows", hasSize(81));

        long allocatedMb = (allocated(threads) - before) / (1024 * 1024);
        assertThat(refused.length()).as("the refusal quoting a 6 MB value").isLessThan(2_000);
        assertThat(allocatedMb).as("MB allocated by every thread while running them").isLessThan(12);
        run(fixtures, "c-worst", turns.get(0), "").statusCode(200).body("rows", hasSize(1));
    }

    private static long allocated(com.sun.management.ThreadMXBean threads) {
        long total = 0;
        for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            total += Math.max(bytes, 0);
        }
        return total;
    }

    /** EXPLAIN of every grounding query, as the agent's role: every relation it reads is in pg_catalog. */
    @Test
    void theGroundingQueriesReadCatalogRelationsOnly() throws Exception {
        Set<String> relations = new HashSet<>();
        try (Connection reader = TestProperties.connectionAs(LocalPostgres.READER_ROLE,
                LocalPostgres.READER_PASSWORD); Statement sql = reader.createStatement()) {
            for (String query : SchemaGrounding.QUERIES) {
                ResultSet plan = sql.executeQuery("EXPLAIN (VERBOSE, FORMAT JSON) " + query);
                plan.next();
                collectRelations(Json.mapper().readTree(plan.getString(1)), relations);
            }
        }
        assertThat(relations).contains("pg_catalog.pg_class", "pg_catalog.pg_attribute", "pg_catalog.pg_statistic")
                .allMatch(relation -> relation.startsWith("pg_catalog."));
        assertThat(String.join("\n", SchemaGrounding.QUERIES)).doesNotContain("most_common")
                .doesNotContain("histogram");
    }

    private static void collectRelations(JsonNode node, Set<String> into) {
        if (node.has("Relation Name")) {
            into.add(node.path("Schema").asText() + "." + node.path("Relation Name").asText());
        }
        node.forEach(child -> collectRelations(child, into));
    }
}
