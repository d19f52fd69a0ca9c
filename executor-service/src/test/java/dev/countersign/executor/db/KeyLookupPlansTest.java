package dev.countersign.executor.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.countersign.devsupport.DemoData;
import dev.countersign.executor.action.ActionRepository;

/**
 * The executor's connections keep PostgreSQL's default {@code plan_cache_mode}, so a statement its pool keeps prepared
 * may run one generic plan, made once from the statistics of its moment (docs/benchmarks.md, "Generic plans and a new
 * database"). On a new database, before autovacuum's first analyse, a key lookup that also compared {@code tenant_id}
 * with a parameter cost the same as a scan of a tenant-leading index, and PostgreSQL sometimes chose the index: every
 * lookup then read all of the tenant's rows (5.4 ms a call after a minute of staging). Checked around the application,
 * as the executor's role, on a database just migrated and never analysed: the generic plan of each hot-path lookup uses
 * the primary key, and another tenant's action is not found by its key. Limits: the statements named here (the hot
 * paths: staging's lookup and the confirm's); the executor's other native key lookups are written the same way but not
 * planned here, and the Panache reads (an action by id for GET, training plans) still compare tenant_id with a
 * parameter (docs/benchmarks.md).
 */
class KeyLookupPlansTest {

    private static final Map<String, String> STATEMENTS = Map.of(
            "find", ActionRepository.FIND,
            "lockForPerson", ActionRepository.LOCK_FOR_PERSON,
            "lockWithToken", ActionRepository.LOCK_WITH_TOKEN,
            "confirm", ActionRepository.CONFIRM);
    private static final String TENANT = "t-fresh";
    private static final Pattern PARAMETER = Pattern.compile("\\$(\\d+)");

    private static MigratedDatabase database;
    private static UUID theirAction;

    @BeforeAll
    static void aDatabaseJustMigratedWithAFewRows() throws SQLException {
        database = MigratedDatabase.start("fresh");
        try (Connection owner = database.owner(); Statement sql = owner.createStatement()) {
            DemoData.createWallet(owner, TENANT, "alice", "Checking", "EUR");
            sql.execute("SELECT set_config('countersign.tenant_id', '%s', false)".formatted(TENANT));
            sql.execute("""
                    INSERT INTO actions (id, tenant_id, requested_by, conversation_id, kind, tier, status, params,
                                         params_hash, token_hash, summary, proposed_at, expires_at)
                    SELECT gen_random_uuid(), '%s', 'alice', 'c-1', 'ledger.transaction.create', 'low', 'proposed',
                           '{"walletId": "w", "amount": "12.50", "description": "a coffee with a colleague"}',
                           repeat('a', 64), repeat('b', 64), 'Expense of 12.50: a coffee with a colleague', now(),
                           now() + interval '1 hour'
                    FROM generate_series(1, 20)""".formatted(TENANT));
            theirAction = UUID.randomUUID();
            sql.execute("SELECT set_config('countersign.tenant_id', 't-theirs', false)");
            sql.execute("""
                    INSERT INTO actions (id, tenant_id, requested_by, kind, tier, status, params, params_hash,
                                         token_hash, summary, proposed_at, expires_at)
                    VALUES ('%s', 't-theirs', 'bob', 'ledger.transaction.create', 'low', 'proposed', '{}',
                            repeat('a', 64), repeat('b', 64), 'theirs', now(), now() + interval '1 hour')"""
                    .formatted(theirAction));
        }
    }

    @AfterAll
    static void stop() {
        if (database != null) {
            database.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"find", "lockForPerson", "lockWithToken", "confirm"})
    void aKeyLookupsGenericPlanUsesThePrimaryKeyOnANewDatabase(String name) throws SQLException {
        try (Connection executor = database.executor(); Statement sql = executor.createStatement()) {
            executor.setAutoCommit(false);
            sql.execute("SELECT set_config('countersign.tenant_id', '%s', true)".formatted(TENANT));
            sql.execute("SELECT set_config('countersign.actor', 'alice', true)");
            sql.execute("SET LOCAL plan_cache_mode = force_generic_plan");
            sql.execute("PREPARE lookup AS " + STATEMENTS.get(name));
            String plan = explain(sql, "EXPLAIN EXECUTE lookup(" + arguments(STATEMENTS.get(name)) + ")");
            executor.rollback();

            assertThat(plan).as(plan).contains("Index Scan using actions_pkey").doesNotContain("actions_by_",
                    "Seq Scan",
                    "Bitmap");
        }
    }

    /**
     * The lookups no longer compare the row's tenant_id with the caller's tenant: row-level security keeps the row to
     * the tenant the transaction named, and the statement checks that this is the caller's. Another tenant's action, by
     * its id and its token hash, is not found, locked or confirmed.
     */
    @ParameterizedTest
    @ValueSource(strings = {"find", "lockForPerson", "lockWithToken", "confirm"})
    void anotherTenantsActionIsNotFoundByItsKey(String name) throws SQLException {
        try (Connection executor = database.executor(); Statement sql = executor.createStatement()) {
            executor.setAutoCommit(false);
            sql.execute("SELECT set_config('countersign.tenant_id', '%s', true)".formatted(TENANT));
            sql.execute("SELECT set_config('countersign.actor', 'alice', true)");
            sql.execute("PREPARE lookup AS " + STATEMENTS.get(name));
            // $1 their action, $2 the tenant named (the caller's), $3 their token hash, $4 who.
            List<String> values = List.of("'" + theirAction + "'", "'" + TENANT + "'", "repeat('b', 64)", "'alice'");
            int found = 0;
            try (ResultSet rows = sql.executeQuery("EXECUTE lookup(%s)"
                    .formatted(String.join(", ", values.subList(0, parameters(STATEMENTS.get(name))))))) {
                while (rows.next()) {
                    found++;
                }
            }
            executor.rollback();

            assertThat(found).isZero();
        }
    }

    /** NULL for each $n of the statement: a generic plan does not depend on the values. */
    private static String arguments(String statement) {
        return String.join(", ", Collections.nCopies(parameters(statement), "NULL"));
    }

    private static int parameters(String statement) {
        return PARAMETER.matcher(statement).results().mapToInt(m -> Integer.parseInt(m.group(1))).max().orElse(0);
    }

    private static String explain(Statement sql, String statement) throws SQLException {
        StringBuilder text = new StringBuilder();
        try (ResultSet rows = sql.executeQuery(statement)) {
            while (rows.next()) {
                text.append(rows.getString(1)).append('\n');
            }
        }
        return text.toString();
    }

}
