package dev.countersign.agent.planmode;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.countersign.agent.AgentTestResources;
import dev.countersign.agent.SignedIn;
import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.evidence.ReaderGrants;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.TestProperties;
import io.quarkus.test.junit.QuarkusTest;

/**
 * What a drafted statement reads, decided by PostgreSQL's own analysis as the plan role: one case per bypass class of
 * the text-reading guard it replaced (parenthesised and nested joins, LATERAL, sub-selects in every clause, CTEs, set
 * operations, views, qualified and quoted names, catalogs and statistics views), and the functions, locks and recursion
 * a run refuses. The first two cases passed the old guard and read another user's chats and other sessions' statements.
 */
@QuarkusTest
@AgentTestResources
class StatementAnalysisTest {

    @Inject
    StatementAnalysis analysis;

    @Inject
    SchemaGrounding grounding;
    @Inject
    ReaderGrants grants;

    private String tenant;

    /** A domain whose CHECK calls a function: a type's functions are not in a view's query tree. */
    @BeforeAll
    static void aDomain() throws Exception {
        try (Connection owner = TestProperties.ownerConnection(); var sql = owner.createStatement()) {
            sql.execute("DO $$ BEGIN CREATE DOMAIN public.plan_test_note AS text CHECK (length(VALUE) < 100);"
                    + " EXCEPTION WHEN duplicate_object THEN NULL; END $$");
        }
    }

    @BeforeEach
    void aTenantWithAWallet() throws Exception {
        tenant = "t-" + UUID.randomUUID();
        try (Connection owner = TestProperties.ownerConnection()) {
            DemoData.createWallet(owner, tenant, "alice", "Checking", "EUR");
        }
    }

    private StatementAnalysis.Result analyse(String sql) {
        Person alice = SignedIn.as(grants, tenant, "alice");
        return analysis.analyse(alice, sql, grounding.inventory(alice));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // Parenthesised and nested joins: the old guard never saw the first relation.
            "SELECT c.user_id, c.payload FROM (conversation_events c LEFT JOIN wallets w ON false)|conversation_events",
            "SELECT a.query FROM (pg_catalog.pg_stat_activity a CROSS JOIN wallets w)|pg_stat_activity",
            "SELECT 1 FROM (wallets w JOIN (transactions t JOIN actions a ON a.id = t.id) ON true)|actions",
            "SELECT 1 FROM ((wallets w JOIN transactions t ON true)) JOIN action_history h ON true|action_history",
            // LATERAL and sub-selects in every clause.
            "SELECT x.* FROM wallets w, LATERAL (SELECT payload FROM conversation_events LIMIT 1) x|conversation_events",
            "SELECT (SELECT payload::text FROM conversation_events LIMIT 1) AS p FROM wallets|conversation_events",
            "SELECT name FROM wallets WHERE EXISTS (SELECT 1 FROM action_history)|action_history",
            "SELECT count(*) FROM wallets HAVING count(*) > (SELECT count(*) FROM actions)|actions",
            "SELECT name FROM wallets ORDER BY (SELECT max(position) FROM conversation_events)|conversation_events",
            "SELECT count(*) FROM wallets GROUP BY (SELECT tenant_id FROM tenant_policies LIMIT 1)|tenant_policies",
            "SELECT name FROM wallets LIMIT (SELECT count(*) FROM auto_apply_spends)|auto_apply_spends",
            "SELECT 1 FROM wallets w JOIN transactions t ON EXISTS (SELECT 1 FROM outbox)|outbox",
            // CTEs, nested, and set operations.
            "WITH c AS (SELECT payload FROM conversation_events) SELECT * FROM c|conversation_events",
            "WITH a AS (WITH b AS (SELECT id FROM actions) SELECT id FROM b) SELECT count(*) FROM a|actions",
            "SELECT name FROM wallets UNION ALL SELECT payload::text FROM conversation_events|conversation_events",
            "SELECT id::text FROM wallets EXCEPT SELECT user_id FROM conversation_events|conversation_events",
            "(SELECT name FROM wallets) INTERSECT (SELECT summary FROM actions)|actions",
            // Views, schema-qualified and quoted names.
            "SELECT * FROM pg_stat_activity|pg_stat_activity",
            "SELECT table_name FROM information_schema.tables|information_schema.tables",
            "SELECT * FROM public.conversation_events|conversation_events",
            "SELECT * FROM \"conversation_events\"|conversation_events",
            "SELECT id FROM \"public\".\"actions\"|actions",
            "SELECT id FROM PUBLIC.ACTIONS|actions",
            // System catalogs and statistics views.
            "SELECT rolname FROM pg_catalog.pg_authid|pg_authid",
            "SELECT relname, reltuples FROM pg_class|pg_class",
            "SELECT name, setting FROM pg_settings|pg_settings",
            "SELECT tablename, null_frac FROM pg_stats|pg_stats",
            "SELECT relname, n_live_tup FROM pg_stat_user_tables|pg_stat_user_tables"})
    void aRelationOutsideTheInventoryIsNeverRunWhereverTheStatementHidesIt(String sql, String relation) {
        StatementAnalysis.Result result = analyse(sql);

        assertThat(result.runnable()).as(sql).isFalse();
        assertThat(result.validation().unknownTables()).as(sql).contains(relation);
        assertThat(result.guard().reason()).contains(relation).contains("not in your schema inventory");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "SELECT set_config('countersign.tenant_id', 'victim', true)|set_config",
            "SELECT t.* FROM (SELECT \"set_config\"('countersign.tenant_id', 'victim', true) AS v OFFSET 0) s,"
                    + " LATERAL (SELECT * FROM transactions WHERE s.v IS NOT NULL) t|set_config",
            "SELECT pg_catalog.\"set_config\"('countersign.tenant_id', 'victim', true)|set_config",
            "SELECT U&\"\\0073et_config\"('a', 'b', true)|set_config",
            "SELECT current_setting('countersign.tenant_id')|current_setting",
            "SELECT query_to_xml('SELECT * FROM actions', true, false, '')|query_to_xml",
            "SELECT * FROM pg_stat_get_activity(NULL)|pg_stat_get_activity",
            "SELECT * FROM ts_stat('SELECT to_tsvector(name) FROM wallets')|ts_stat",
            "SELECT 1 AS one FROM wallets WHERE pg_sleep(1) IS NULL|pg_sleep",
            "SELECT * FROM generate_series(1, 10)|generate_series",
            "SELECT public.current_tenant()|current_tenant",
            "SELECT nextval('outbox_id_seq')|nextval",
            "SELECT 1 AS one WHERE pg_advisory_lock(1) IS NULL|pg_advisory_lock",
            "SELECT repeat(name, 100000000) FROM wallets|repeat",
            // A small call that builds a value of a gigabyte, and that PostgreSQL does not interrupt.
            "SELECT lpad(name, 250000000, 'x') AS padded FROM wallets|lpad",
            "SELECT rpad(name, 250000000, 'x') AS padded FROM wallets|rpad",
            "SELECT replace(replace(name, 'e', 'eeeeeeee'), 'e', 'eeeeeeee') AS r FROM wallets|replace",
            // A cast function called by name is no cast: bpchar pads to any length.
            "SELECT length(pg_catalog.bpchar(name::bpchar, 1000000000, false)) AS n FROM wallets|bpchar",
            // Numbers of 130,000 digits, on which PostgreSQL's division does not check for cancellation.
            "SELECT 10::numeric ^ 130000 AS n|numeric_power",
            "SELECT power(10::numeric, 130000) AS n|power"})
    void aFunctionOffTheAllowListIsNeverRunHoweverItIsNamed(String sql, String function) {
        StatementAnalysis.Result result = analyse(sql);

        assertThat(result.runnable()).as(sql).isFalse();
        assertThat(result.guard().reason()).as(sql).contains(function).contains("not a listed pure built-in");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r|recursive",
            "SELECT id FROM wallets FOR UPDATE|locks rows",
            "SELECT id FROM wallets FOR SHARE|locks rows",
            "WITH gone AS (DELETE FROM transactions RETURNING id) SELECT count(*) FROM gone|data-modifying",
            "SELECT * INTO copy_of_wallets FROM wallets|SELECT INTO",
            "SELECT id FROM wallets WHERE id = $1|$1",
            "SELECT w.id, t.id FROM wallets w, transactions t|its own name",
            "DELETE FROM transactions WHERE amount < 0|Only a single SELECT",
            "UPDATE wallets SET name = 'x'|Only a single SELECT",
            // Nodes whose work the analysis cannot see or PostgreSQL cannot interrupt (libxml2's XPath).
            "SELECT x.n FROM XMLTABLE('/r' PASSING CAST('<r><a/></r>' AS xml) COLUMNS n text PATH 'count(//a)') AS x"
                    + "|TABLEFUNC",
            "SELECT JSON_QUERY(CAST('{\"a\":1}' AS jsonb), '$.a' RETURNING text) AS q|JSONEXPR",
            "SELECT xmlelement(name a, name) AS e FROM wallets|XMLEXPR",
            "SELECT CAST(name AS xml) AS x FROM wallets|xml type",
            "SELECT CAST(name AS public.plan_test_note) AS n FROM wallets|COERCETODOMAIN",
            "SELECT name FROM wallets TABLESAMPLE SYSTEM (50)|TABLESAMPLECLAUSE",
            // Valid alone, but not as the sub-select a run wraps it in: what runs is what was analysed.
            "SELECT name FROM wallets; /* a note */|sub-select",
            "SELECT name FROM wallets; -- a note|sub-select"})
    void whatARunCannotDoIsRefusedWithPostgresqlsReason(String sql, String reason) {
        StatementAnalysis.Result result = analyse(sql);

        assertThat(result.runnable()).as(sql).isFalse();
        assertThat(result.guard().reason()).as(sql).contains(reason);
    }

    @Test
    void aStatementForThePersonToRunThemselvesIsAnalysedForTheRelationsItNamesAndNeverRun() {
        StatementAnalysis.Result delete = analyse("DELETE FROM transactions WHERE category = 'coffee'");

        assertThat(delete.runnable()).isFalse();
        assertThat(delete.validation().notParsed()).isNull();
        assertThat(delete.validation().tables()).containsExactly("transactions");
        assertThat(delete.validation().unknownTables()).isEmpty();
        assertThat(delete.guard().reason()).contains("DELETE");
        // A change to what plan mode does not offer is no more a deliverable than a read of it.
        assertThat(analyse("UPDATE action_history SET status = 'x'").validation().unknownTables())
                .containsExactly("action_history");
        assertThat(analyse("DELETE FROM conversation_events WHERE user_id IN (SELECT owner_id FROM wallets)")
                .validation().unknownTables()).containsExactly("conversation_events");
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT 1; SELECT 2", "SELECT 1 --\r; DELETE FROM wallets",
            "SELECT 'unterminated FROM wallets",
            "SELECT total FROM <your table>", "-- fill in the table name"})
    void textPostgresqlCannotReadAsOneStatementIsNotAStatement(String sql) {
        StatementAnalysis.Result result = analyse(sql);

        assertThat(result.runnable()).as(sql).isFalse();
        assertThat(result.validation().notParsed()).as(sql).isNotNull();
    }

    @Test
    void unknownRelationsAndColumnsArePostgresqlsOwnFindings() {
        assertThat(analyse("SELECT title FROM film").validation().unknownTables()).containsExactly("film");
        assertThat(analyse("SELECT t.amount, t.amout FROM transactions t").validation().unknownColumns())
                .containsExactly("t.amout");
        assertThat(analyse("SELECT \"Amount\" FROM transactions").validation().unknownColumns())
                .containsExactly("Amount");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT 'delete from wallets; update' AS note, name FROM wallets",
            "select id -- DELETE FROM wallets\nfrom wallets;",
            "SELECT $$ INSERT INTO x $$ AS text",
            "/* DROP TABLE wallets /* nested */ */ SELECT 1",
            "(SELECT 1) UNION (SELECT 2)",
            "TABLE wallets",
            "SELECT \"sum\"(amount), pg_catalog.max(amount), round(avg(amount)::numeric(10, 2), 2) FROM transactions;",
            "SELECT category, count(*) FILTER (WHERE amount > 10) OVER (PARTITION BY wallet_id) FROM transactions",
            "SELECT date_trunc('month', occurred_on) AS m, CAST(sum(amount) AS numeric(12, 2)) FROM transactions"
                    + " WHERE category IN ('coffee') AND EXISTS (SELECT 1 FROM wallets) GROUP BY 1",
            "WITH monthly (month_start, total) AS (SELECT date_trunc('month', occurred_on), sum(amount)"
                    + " FROM ONLY public.transactions GROUP BY 1) SELECT m.month_start, m.total,"
                    + " extract(year from m.month_start) AS y FROM monthly m WHERE m.total IS DISTINCT FROM 0",
            "SELECT w.name, t.amount FROM (transactions t JOIN wallets w ON w.id = t.wallet_id)",
            "SELECT w.name, x.total FROM wallets w, LATERAL (SELECT sum(amount) AS total FROM transactions t"
                    + " WHERE t.wallet_id = w.id) x",
            "SELECT sum(amount) OVER (ORDER BY occurred_on RANGE BETWEEN '7 days' PRECEDING AND CURRENT ROW)"
                    + " FROM transactions",
            "SELECT amount * 2 AS doubled, amount::text || ' EUR' AS label, upper(category) AS shouted"
                    + " FROM transactions WHERE amount > 1 AND category ILIKE 'c%'"})
    void aReadOverTheInventoryWithAllowedFunctionsRuns(String sql) {
        StatementAnalysis.Result result = analyse(sql);

        assertThat(result.runnable()).as(sql + ": " + result.guard().reason()).isTrue();
        assertThat(result.validation().notParsed()).isNull();
        assertThat(result.validation().unknownTables()).isEmpty();
    }

    /** Twenty levels of v || v: a million calls in one row's expression, which PostgreSQL cannot cancel. */
    @Test
    void aStatementWhoseExpressionsExplodeOnceInlinedIsRefusedAndOneThatDoesNotRuns() {
        StringBuilder doubling = new StringBuilder("WITH d0 AS (SELECT name AS v FROM wallets)");
        for (int level = 1; level <= 20; level++) {
            doubling.append(", d%d AS (SELECT v || v AS v FROM d%d)".formatted(level, level - 1));
        }
        StatementAnalysis.Result exploding = analyse(doubling + " SELECT v FROM d20");
        String nested = "SELECT name AS v FROM wallets";
        for (int level = 1; level <= 20; level++) {
            nested = "SELECT s%d.v || s%d.v AS v FROM (%s) s%d".formatted(level, level, nested, level);
        }
        assertThat(analyse(nested).guard().reason()).contains("nodes once PostgreSQL copies");
        StatementAnalysis.Result joined = analyse("SELECT x.v || x.v AS v FROM (SELECT s.v || s.v AS v FROM"
                + " (SELECT w.name || w.name AS v FROM (wallets w JOIN transactions t ON t.wallet_id = w.id)) s) x");

        // The same chain inside a sub-select of an expression, through whole-row references, or fanned out by a
        // function in FROM: the planner copies each as well.
        String chain = "SELECT name AS v FROM wallets";
        String wholeRows = "SELECT name AS v FROM wallets";
        for (int level = 1; level <= 18; level++) {
            chain = "SELECT s%d.v || s%d.v AS v FROM (%s) s%d".formatted(level, level, chain, level);
            wholeRows = "SELECT concat(s%d, s%d) AS v FROM (%s) s%d".formatted(level, level, wholeRows, level);
        }
        assertThat(analyse("SELECT (SELECT length(x.v) FROM (" + chain + ") x) AS n").guard().reason())
                .contains("nodes once PostgreSQL copies");
        assertThat(analyse(wholeRows).guard().reason()).contains("nodes once PostgreSQL copies");
        String twelve = "SELECT name AS v FROM wallets";
        for (int level = 1; level <= 12; level++) {
            twelve = "SELECT s%d.v || s%d.v AS v FROM (%s) s%d".formatted(level, level, twelve, level);
        }
        assertThat(analyse(twelve).runnable()).as("4,096 nodes").isTrue();
        assertThat(analyse("SELECT f.v FROM (" + twelve + ") a, LATERAL concat(a.v, a.v, a.v, a.v, a.v, a.v) AS f(v)")
                .guard().reason()).contains("nodes once PostgreSQL copies");

        assertThat(exploding.runnable()).isFalse();
        assertThat(exploding.guard().reason()).contains("nodes once PostgreSQL copies");
        assertThat(joined.runnable()).as(joined.guard().reason()).isTrue();
    }

    @Test
    void aStatementLongerThanPlanModeReadsIsNotAStatement() {
        String padded = "SELECT name FROM wallets WHERE name <> '" + "x".repeat(10_000) + "'";

        assertThat(analyse(padded).validation().notParsed()).contains("characters long");
    }

    @Test
    void aStatementWithMoreColumnsThanARunReturnsIsRefused() {
        String wide = IntStream.rangeClosed(1, 51).mapToObj(i -> i + " AS c" + i).collect(Collectors.joining(", "));

        assertThat(analyse("SELECT " + wide).guard().reason()).contains("51 columns");
    }

    @Test
    void theTablesAStatementReadsAreNamedAsPostgresqlNamesThem() {
        assertThat(analyse("SELECT w.name FROM \"wallets\" w JOIN public.transactions t ON t.wallet_id = w.id")
                .validation().tables()).containsExactlyInAnyOrder("wallets", "transactions");
    }
}
