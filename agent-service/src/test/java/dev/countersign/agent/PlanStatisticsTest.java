package dev.countersign.agent;

import static dev.countersign.agent.AgentFixtures.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.TenantIsolation;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.testing.ReaderGrantIssuer;
import dev.countersign.devsupport.testing.TestProperties;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Statistics that reach the model in plan mode for tables under row-level security (issue 17, part 3): the inventory
 * the model is sent, read through the application, and {@code plan_statistics()} (executor migration
 * R__plan_statistics.sql) called as the roles themselves, around the application.
 */
@QuarkusTest
@AgentTestResources
class PlanStatisticsTest {

    /** A tenant's row estimate as the model reads it. */
    private static final Pattern ROWS = Pattern.compile("about (\\d+) of your tenant's rows \\(planner estimate");

    /**
     * Tenant A has 20 transactions, B 5,000 and C 6,000, so the whole table holds at least 11,020. The tolerance is a
     * factor of 2: ANALYZE reads every row of a table this small (up to 30,000 rows at the default statistics target),
     * so each tenant's frequency, and with it the estimate, is exact up to rounding; the factor only leaves room for
     * autovacuum re-estimating the table in between, and still tells 20 from 5,000 from the whole table.
     */
    @Test
    void eachTenantIsToldAnEstimateOfItsOwnRowsAndNothingOfAnotherTenantsOrTheWholeTable() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        String canary = "mcv-canary-" + run;
        AgentFixtures a = new AgentFixtures();
        AgentFixtures b = new AgentFixtures();
        AgentFixtures c = new AgentFixtures();
        transactions(a, 20, "a-note-" + run);
        transactions(b, 5_000, canary);
        transactions(c, 6_000, "c-note-" + run);
        long whole;
        try (Connection owner = TestProperties.ownerConnection(); Statement sql = owner.createStatement()) {
            sql.execute("ANALYZE transactions");
            ResultSet reltuples = sql
                    .executeQuery("SELECT reltuples FROM pg_class WHERE oid = 'transactions'::regclass");
            reltuples.next();
            whole = Math.round(reltuples.getDouble(1));
            // The canary is a most common value of the column: if it appeared anywhere below, that would be a leak.
            ResultSet common = sql.executeQuery("SELECT most_common_vals::text FROM pg_stats"
                    + " WHERE tablename = 'transactions' AND attname = 'description'");
            common.next();
            assertThat(common.getString(1)).contains(canary);
        }
        assertThat(whole).isGreaterThanOrEqualTo(11_020);

        String forA = transactionsBlock(inventoryFor(a));
        String forB = transactionsBlock(inventoryFor(b));

        assertThat(rows(forA)).as(forA).isBetween(10L, 40L);
        assertThat(rows(forB)).as(forB).isBetween(2_500L, 10_000L);
        // No figure larger than the tenant's own estimate: not the other tenants' counts, not the whole table's, not
        // a distinct count of the whole table (a positive n_distinct is capped at the tenant's estimate).
        assertThat(integers(forA)).as(forA).allMatch(n -> n <= rows(forA));
        assertThat(integers(forB)).as(forB).allMatch(n -> n <= rows(forB));
        assertThat(forA).doesNotContain("withheld").doesNotContain(String.valueOf(whole))
                .contains("(column statistics are estimates over all tenants' rows of this table; the row estimate is"
                        + " your tenant's own)")
                .containsPattern("description text \\[nulls ~\\d+\\.\\d% \\(estimate\\)");
        for (String text : List.of(forA, forB)) {
            assertThat(text).doesNotContain(run)
                    .doesNotContain(a.tenant).doesNotContain(b.tenant).doesNotContain(c.tenant);
        }

        // Around the application, as the reader role in A's transaction: tenant_id's figures (the number of tenants)
        // are never given, and every other positive distinct count is at most A's estimate.
        List<Map<String, Object>> statistics = statisticsAsReader(a.tenant, "transactions");
        assertThat(statistics).isNotEmpty().allSatisfy(row -> {
            assertThat((Double) row.get("tenant_rows_estimate")).isBetween(10.0, 40.0);
            Double distinct = (Double) row.get("n_distinct");
            assertThat(distinct == null || distinct <= (Double) row.get("tenant_rows_estimate")).as(row.toString())
                    .isTrue();
        });
        assertThat(statistics).filteredOn(row -> "tenant_id".equals(row.get("column_name"))).singleElement()
                .satisfies(row -> assertThat(row.get("null_frac")).isNull())
                .satisfies(row -> assertThat(row.get("n_distinct")).isNull());
    }

    @Test
    void aTenantTableNeverAnalysedIsOfUnknownSizeNotEmptyAndATableUnderAnotherPolicyStaysWithheld() throws Exception {
        AgentFixtures fixtures = new AgentFixtures();
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String keyed = "plan_probe_tenant_" + suffix;
        String perUser = "plan_probe_per_user_" + suffix;
        try (Connection owner = TestProperties.ownerConnection(); Statement sql = owner.createStatement()) {
            for (String table : List.of(keyed, perUser)) {
                sql.execute("CREATE TABLE " + table + " (tenant_id text NOT NULL, reading numeric)"
                        + " WITH (autovacuum_enabled = false)");
                sql.execute("ALTER TABLE " + table + " ENABLE ROW LEVEL SECURITY");
                sql.execute("GRANT SELECT ON " + table + " TO " + LocalPostgres.READER_ROLE);
            }
            sql.execute("CREATE POLICY tenant_rows ON " + keyed + " USING (tenant_id = current_tenant())");
            // Rows of one user of the tenant: an estimate of the tenant's rows would count rows the caller cannot see.
            sql.execute("CREATE POLICY own_rows ON " + perUser
                    + " USING (tenant_id = current_tenant() AND reading > 100)");
            for (String table : List.of(keyed, perUser)) {
                sql.execute(
                        "INSERT INTO " + table + " SELECT '" + fixtures.tenant + "', i FROM generate_series(1, 30) i");
            }
        }

        try {
            neverAnalysedThenAnalysed(fixtures, keyed, perUser);
        } finally {
            // Other plan tests read every plan_probe_* relation: they should not meet these.
            try (Connection owner = TestProperties.ownerConnection(); Statement sql = owner.createStatement()) {
                sql.execute("DROP TABLE " + keyed + ", " + perUser);
            }
        }
    }

    private static void neverAnalysedThenAnalysed(AgentFixtures fixtures, String keyed, String perUser)
            throws Exception {
        String before = inventoryFor(fixtures);
        assertThat(block(before, keyed)).contains("rows: UNKNOWN (no statistics for your tenant's rows: this is NOT"
                + " an empty table").doesNotContain("about 0").doesNotContain("withheld");
        assertThat(block(before, perUser)).contains("rows: UNKNOWN (withheld");

        try (Connection owner = TestProperties.ownerConnection(); Statement sql = owner.createStatement()) {
            sql.execute("ANALYZE " + keyed);
            sql.execute("ANALYZE " + perUser);
        }
        String after = inventoryFor(fixtures);
        assertThat(block(after, keyed)).contains("rows: about 30 of your tenant's rows (planner estimate, not a count)")
                .contains("reading numeric [nulls ~0.0% (estimate); distinct values ~30 (estimate, derived:");
        assertThat(block(after, perUser)).contains("rows: UNKNOWN (withheld").doesNotContain("about 30")
                .contains("(no column statistics: PostgreSQL withholds them under row-level security)");
        assertThat(statisticsAsReader(fixtures.tenant, perUser)).isEmpty();
    }

    /** Around the application: the reader role, connected as itself, calls the function with no tenant named. */
    @Test
    void planStatisticsIsRefusedWhenTheTransactionNamesNoTenant() throws Exception {
        try (Connection reader = reader(); Statement sql = reader.createStatement()) {
            assertThatThrownBy(() -> count(sql, "SELECT count(*) FROM plan_statistics()"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("no live reader grant");
            reader.setAutoCommit(false);
            sql.execute("SELECT " + TenantIsolation.useGrant("''"));
            assertThatThrownBy(() -> count(sql, "SELECT count(*) FROM plan_statistics()"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("no live reader grant");
            reader.rollback();
            // Not vacuous: with a grant named, the shipped tables are described.
            sql.execute("SELECT " + TenantIsolation.useGrant(
                    "'" + ReaderGrantIssuer.grant("t-" + UUID.randomUUID(), "alice") + "'"));
            assertThat(count(sql, "SELECT count(*) FROM plan_statistics() WHERE relation_name = 'transactions'"))
                    .isPositive();
            reader.rollback();
        }
    }

    @Test
    void planStatisticsIsASecurityDefinerWithAPinnedSearchPathExecutableByTheReaderRoleOnly() throws Exception {
        try (Connection owner = TestProperties.ownerConnection(); Statement sql = owner.createStatement()) {
            ResultSet function = sql.executeQuery("SELECT prosecdef, proconfig::text FROM pg_proc"
                    + " WHERE oid = 'plan_statistics()'::regprocedure");
            function.next();
            assertThat(function.getBoolean(1)).isTrue();
            assertThat(function.getString(2)).isEqualTo("{\"search_path=pg_catalog, public, pg_temp\"}");
            ResultSet grantees = sql.executeQuery("SELECT coalesce(r.rolname, 'PUBLIC') FROM pg_proc p,"
                    + " aclexplode(p.proacl) acl LEFT JOIN pg_roles r ON r.oid = acl.grantee"
                    + " WHERE p.oid = 'plan_statistics()'::regprocedure AND acl.privilege_type = 'EXECUTE'");
            Set<String> executors = new HashSet<>();
            while (grantees.next()) {
                executors.add(grantees.getString(1));
            }
            assertThat(executors).containsExactlyInAnyOrder(LocalPostgres.OWNER_ROLE, LocalPostgres.READER_ROLE);
        }
        try (Connection executor = TestProperties.connectionAs(LocalPostgres.EXECUTOR_ROLE,
                LocalPostgres.EXECUTOR_PASSWORD); Statement sql = executor.createStatement()) {
            assertThatThrownBy(() -> sql.executeQuery("SELECT * FROM plan_statistics()"))
                    .isInstanceOfSatisfying(SQLException.class,
                            e -> assertThat(e.getSQLState()).isEqualTo("42501"));
        }
    }

    /**
     * What the function reads and returns: only catalog relations (its body, planned as the owner it runs as), no scan
     * of any user table when the reader calls it (the transaction's own table statistics), identifiers and numbers
     * only, and only relations and columns the caller may SELECT (judged for the caller, not for the owner).
     */
    @Test
    void planStatisticsReadsTheCatalogOnlyAndDescribesOnlyWhatTheCallerMaySelect() throws Exception {
        Set<String> relations = new HashSet<>();
        try (Connection owner = TestProperties.ownerConnection(); Statement sql = owner.createStatement()) {
            ResultSet body = sql
                    .executeQuery("SELECT prosrc FROM pg_proc WHERE oid = 'plan_statistics()'::regprocedure");
            body.next();
            ResultSet plan = sql.executeQuery("EXPLAIN (VERBOSE, FORMAT JSON) " + body.getString(1));
            plan.next();
            collectRelations(Json.mapper().readTree(plan.getString(1)), relations);
        }
        assertThat(relations).contains("pg_catalog.pg_class", "pg_catalog.pg_statistic")
                .allMatch(relation -> relation.startsWith("pg_catalog."));

        try (Connection reader = reader(); Statement sql = reader.createStatement()) {
            reader.setAutoCommit(false);
            sql.execute("SELECT " + TenantIsolation.useGrant(
                    "'" + ReaderGrantIssuer.grant("t-" + UUID.randomUUID(), "alice") + "'"));
            ResultSet described = sql.executeQuery("SELECT * FROM plan_statistics()");
            ResultSetMetaData shape = described.getMetaData();
            List<String> columns = new ArrayList<>();
            for (int i = 1; i <= shape.getColumnCount(); i++) {
                columns.add(shape.getColumnName(i) + " " + shape.getColumnTypeName(i));
            }
            assertThat(columns).containsExactly("relid oid", "schema_name text", "relation_name text",
                    "column_name text", "tenant_rows_estimate float8", "null_frac float8", "n_distinct float8");
            Set<String> names = new HashSet<>();
            while (described.next()) {
                names.add(described.getString("relation_name") + "." + described.getString("column_name"));
            }
            assertThat(names).contains("transactions.amount", "wallets.name")
                    // Per person (a restrictive policy: a grant holder sees its own person's rows only), so a tenant's
                    // row estimate would count rows the caller may not see: never described.
                    .noneMatch(name -> name.startsWith("actions.") || name.startsWith("conversation_events."))
                    .noneMatch(name -> name.startsWith("outbox.") || name.startsWith("import_history."));
            // The caller's own reader grant is looked up once, to know its tenant (R__current_tenant.sql).
            ResultSet scans = sql.executeQuery("SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0))"
                    + " FILTER (WHERE relname <> 'reader_grants'), 0), coalesce(sum(idx_scan) FILTER (WHERE relname ="
                    + " 'reader_grants'), 0) FROM pg_stat_xact_user_tables");
            scans.next();
            assertThat(scans.getLong(1)).as("scans of user tables in this transaction").isZero();
            assertThat(scans.getLong(2)).as("lookups of the caller's grant").isBetween(1L, 3L);
            reader.rollback();
        }
    }

    private static void transactions(AgentFixtures tenant, int rows, String description) throws Exception {
        try (Connection owner = TestProperties.ownerConnection(); PreparedStatement insert = owner.prepareStatement("""
                INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, description, occurred_on)
                SELECT gen_random_uuid(), ?, ?, 1 + i % 50, 'cat-' || i % 12, ?, current_date - i % 300
                FROM generate_series(1, ?) i""")) {
            insert.setString(1, tenant.tenant);
            insert.setObject(2, tenant.checking);
            insert.setString(3, description);
            insert.setInt(4, rows);
            insert.executeUpdate();
        }
    }

    /** The schema inventory in the system prompt of a plan turn of {@code tenant}. */
    private static String inventoryFor(AgentFixtures tenant) {
        ScriptedModel.use(script(ModelReply.text("NO STATEMENT: this test reads the inventory it was sent.")));
        PlanModeTest.plan(tenant, "c-" + UUID.randomUUID(), "how many transactions do I have?").statusCode(200);
        String system = ScriptedModel.requests().get(0).path("messages").get(0).path("content").asText();
        return system.substring(system.indexOf("Schema inventory"));
    }

    private static String transactionsBlock(String inventory) {
        return block(inventory, "transactions");
    }

    /** A relation's lines of the inventory, up to the next relation. */
    private static String block(String inventory, String relation) {
        int start = inventory.indexOf("relation public." + relation + " - rows:");
        assertThat(start).as("relation %s in %s", relation, inventory).isNotNegative();
        int end = inventory.indexOf("\nrelation ", start + 1);
        return inventory.substring(start, end < 0 ? inventory.length() : end);
    }

    private static long rows(String block) {
        Matcher matcher = ROWS.matcher(block);
        assertThat(matcher.find()).as(block).isTrue();
        return Long.parseLong(matcher.group(1));
    }

    /** The whole numbers in a block, leaving out percentages and type modifiers such as numeric(14,2). */
    private static List<Long> integers(String block) {
        Matcher matcher = Pattern.compile("\\d+").matcher(block.replaceAll("\\d+\\.\\d+%", "")
                .replaceAll("\\(\\d+,\\d+\\)", ""));
        List<Long> numbers = new ArrayList<>();
        while (matcher.find()) {
            numbers.add(Long.parseLong(matcher.group()));
        }
        return numbers;
    }

    private static Connection reader() throws SQLException {
        return TestProperties.connectionAs(LocalPostgres.READER_ROLE, LocalPostgres.READER_PASSWORD);
    }

    /** {@code plan_statistics()} for {@code relation}, as the reader role in a transaction naming {@code tenant}. */
    private static List<Map<String, Object>> statisticsAsReader(String tenant, String relation) throws SQLException {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (Connection reader = reader()) {
            reader.setAutoCommit(false);
            try (PreparedStatement name = reader.prepareStatement("SELECT " + TenantIsolation.useGrant("?"));
                    PreparedStatement query = reader.prepareStatement(
                            "SELECT * FROM plan_statistics() WHERE relation_name = ?")) {
                name.setString(1, ReaderGrantIssuer.grant(tenant, "alice"));
                name.executeQuery();
                query.setString(1, relation);
                ResultSet result = query.executeQuery();
                while (result.next()) {
                    Map<String, Object> row = new HashMap<>();
                    for (String column : List.of("column_name", "tenant_rows_estimate", "null_frac", "n_distinct")) {
                        row.put(column, result.getObject(column));
                    }
                    rows.add(row);
                }
            } finally {
                reader.rollback();
            }
        }
        return rows;
    }

    private static long count(Statement sql, String query) throws SQLException {
        ResultSet result = sql.executeQuery(query);
        result.next();
        return result.getLong(1);
    }

    private static void collectRelations(JsonNode node, Set<String> into) {
        if (node.has("Relation Name")) {
            into.add(node.path("Schema").asText() + "." + node.path("Relation Name").asText());
        }
        node.forEach(child -> collectRelations(child, into));
    }
}
