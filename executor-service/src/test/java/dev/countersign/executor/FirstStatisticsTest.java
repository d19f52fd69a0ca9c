package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/**
 * Generic plans on a new database (V22__first_statistics.sql, docs/benchmarks.md "Generic plans and a new database"):
 * the executor's connections keep PostgreSQL's default {@code plan_cache_mode}, so a kept statement may run a generic
 * plan made from the statistics of its moment. Checked around the application, as PostgreSQL plans it: statistics of a
 * table a few rows large make the lookup by id a sequential scan, while a table never analysed, or analysed at a
 * thousand rows, gets its primary key; and the growing tables wait for 1,000 changed rows before autovacuum's first
 * analyse. Limit: autovacuum's timing itself is not tested (its naptime is a minute), only the setting it reads.
 */
@QuarkusTest
@ExecutorTestResources
class FirstStatisticsTest {

    /** The plan a kept statement runs once PostgreSQL settles on its generic plan. */
    private static final String LOOKUP = "EXPLAIN EXECUTE lookup(gen_random_uuid())";

    @Test
    void aLookupByIdIsPlannedWithTheKeyUnlessStatisticsWereTakenWhileTheTableWasTiny() throws SQLException {
        try (Connection owner = Db.owner(); Statement sql = owner.createStatement()) {
            // A temporary copy of actions: autovacuum never touches it, so only this test analyses it.
            sql.execute("CREATE TEMP TABLE probe (LIKE actions INCLUDING DEFAULTS INCLUDING INDEXES)");
            sql.execute("SET plan_cache_mode = force_generic_plan");
            sql.execute("PREPARE lookup(uuid) AS SELECT * FROM probe WHERE id = $1");
            insertRows(sql, 3);
            assertThat(plan(sql)).as("never analysed, three rows").contains("Index Scan using probe_pkey");

            sql.execute("ANALYZE probe");
            assertThat(plan(sql)).as("analysed at three rows").contains("Seq Scan on probe");

            insertRows(sql, 997);
            sql.execute("ANALYZE probe");
            assertThat(plan(sql)).as("analysed at a thousand rows").contains("Index Scan using probe_pkey");
            sql.execute("DEALLOCATE lookup");
            sql.execute("RESET plan_cache_mode");
        }
    }

    @Test
    void theTablesThatGrowWithEveryActionAreFirstAnalysedAfterAThousandChanges() throws SQLException {
        List<String> growing = List.of("actions", "action_history", "action_approvals", "idempotency_keys",
                "transactions", "outbox", "processed_events", "conversation_events", "auto_apply_spends");
        List<String> set = new ArrayList<>();
        try (Connection owner = Db.owner();
                Statement sql = owner.createStatement();
                ResultSet rows = sql.executeQuery("SELECT relname FROM pg_class WHERE relnamespace ="
                        + " 'public'::regnamespace AND 'autovacuum_analyze_threshold=1000' = ANY (reloptions)")) {
            while (rows.next()) {
                set.add(rows.getString(1));
            }
        }
        assertThat(set).containsExactlyInAnyOrderElementsOf(growing);
    }

    private static void insertRows(Statement sql, int count) throws SQLException {
        sql.execute("""
                INSERT INTO probe (id, tenant_id, requested_by, kind, tier, status, params, params_hash, token_hash,
                                   summary, proposed_at, expires_at)
                SELECT gen_random_uuid(), 't-probe', 'alice', 'ledger.transaction.create', 'low', 'proposed',
                       '{"walletId": "w", "amount": "12.50", "description": "a coffee with a colleague"}',
                       repeat('a', 64), repeat('b', 64), 'Expense of 12.50 on w: a coffee with a colleague', now(),
                       now() + interval '1 hour'
                FROM generate_series(1, %d)""".formatted(count));
    }

    private static String plan(Statement sql) throws SQLException {
        StringBuilder text = new StringBuilder();
        try (ResultSet rows = sql.executeQuery(LOOKUP)) {
            while (rows.next()) {
                text.append(rows.getString(1)).append('\n');
            }
        }
        return text.toString();
    }
}
