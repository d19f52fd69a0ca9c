package dev.countersign.agent.planmode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.countersign.agent.AgentTestResources;
import dev.countersign.agent.SignedIn;
import dev.countersign.agent.evidence.ReaderGrants;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.testing.TestProperties;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.pgclient.PgException;

/**
 * The guard switched off: hostile statements run straight in a plan run's transaction (the plan role, its pool, READ
 * ONLY, the tenant set by the runner), as if the analysis had let them through. What holds is the database's fence: no
 * conversations, actions or audit trails, no settings changed, no other session's statements, no lock that outlives the
 * run, no other tenant's rows.
 */
@QuarkusTest
@AgentTestResources
class PlanRoleFenceTest {

    @Inject
    PlanSessions sessions;
    @Inject
    ReaderGrants grants;

    private String tenant;
    private String victim;

    @BeforeEach
    void twoTenants() throws Exception {
        tenant = "t-" + UUID.randomUUID();
        victim = "t-" + UUID.randomUUID();
        try (Connection owner = TestProperties.ownerConnection()) {
            DemoData.createWallet(owner, tenant, "alice", "Checking", "EUR");
            DemoData.createWallet(owner, victim, "mallory", "Victim's secret wallet", "EUR");
        }
    }

    private Row runUnguarded(String sql) {
        return sessions.running(SignedIn.as(grants, tenant, "alice"), connection -> connection.query(sql).execute())
                .await().atMost(Duration.ofSeconds(10)).iterator().next();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT count(*) FROM conversation_events",
            "SELECT count(*) FROM actions",
            "SELECT count(*) FROM action_history",
            "SELECT count(*) FROM action_approvals",
            "SELECT count(*) FROM tenant_policies",
            "SELECT count(*) FROM tenant_policy_history",
            "SELECT count(*) FROM auto_apply_spends",
            "SELECT count(*) FROM outbox",
            "SELECT count(*) FROM training_plans",
            "SELECT count(*) FROM idempotency_keys",
            "SELECT rolpassword FROM pg_authid",
            "SELECT set_config('countersign.tenant_id', 'victim', true)",
            "SELECT t.* FROM (SELECT set_config('countersign.tenant_id', 'victim', true) AS v OFFSET 0) s,"
                    + " LATERAL (SELECT * FROM wallets WHERE s.v IS NOT NULL) t",
            "SELECT set_config('work_mem', '2GB', false)",
            "SELECT query FROM pg_stat_activity",
            "SELECT pg_stat_get_backend_activity(1)",
            "SELECT query_to_xml('SELECT * FROM wallets', true, false, '')",
            "SELECT table_to_xml('wallets', true, false, '')",
            "SELECT pg_advisory_lock(42)",
            "SELECT pg_terminate_backend(pg_backend_pid())",
            "SELECT pg_notify('countersign', 'hello')",
            "WITH renamed AS (UPDATE wallets SET name = 'x' RETURNING 1) SELECT count(*) FROM renamed",
            "UPDATE pg_settings SET setting = 'victim' WHERE name = 'countersign.tenant_id'",
            "SELECT name, statement FROM pg_prepared_statements",
            "SELECT relation::regclass, pid FROM pg_locks",
            "SELECT relname, n_tup_ins FROM pg_stat_user_tables",
            "SELECT count(*) FROM pg_stat_get_backend_idset()",
            "SELECT * FROM ts_stat('SELECT to_tsvector(name) FROM wallets')",
            "SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery')",
            // The run's own function runs SQL text, with the plan role's own privileges only.
            "SELECT * FROM plan_rows('SELECT count(*) FROM conversation_events') AS r(n bigint)"})
    void aHostileStatementPastTheGuardIsRefusedByTheDatabase(String sql) {
        Throwable refused = catchThrowable(() -> runUnguarded(sql));

        assertThat(refused).as(sql).isInstanceOf(PgException.class);
        // insufficient_privilege, or read_only_sql_transaction for the writes.
        assertThat(((PgException) refused).getSqlState()).as(sql).isIn("42501", "25006");
    }

    @Test
    void anotherTenantsRowsAreInvisibleAndTheTenantIsTheRunnersWord() throws Exception {
        assertThat(runUnguarded("SELECT count(*) AS n FROM wallets WHERE tenant_id = '" + victim + "'").getLong("n"))
                .isZero();
        assertThat(runUnguarded("SELECT count(*) AS n FROM wallets").getLong("n")).isEqualTo(1);
        assertThat(runUnguarded("SELECT current_tenant() AS t").getString("t")).isEqualTo(tenant);
        // The victim's wallet is there, for the owner.
        try (Connection owner = TestProperties.ownerConnection();
                PreparedStatement count = owner.prepareStatement("SELECT count(*) FROM wallets WHERE tenant_id = ?")) {
            count.setString(1, victim);
            ResultSet rows = count.executeQuery();
            rows.next();
            assertThat(rows.getInt(1)).isEqualTo(1);
        }
    }

    @Test
    void theRoleIsFencedAndItsLimitsAreItsOwn() {
        Row fence = runUnguarded("SELECT current_user AS who, current_setting('temp_file_limit') AS temp,"
                + " current_setting('transaction_read_only') AS read_only,"
                + " current_setting('client_min_messages') AS notices");

        assertThat(fence.getString("who")).isEqualTo(LocalPostgres.PLAN_ROLE);
        assertThat(fence.getString("temp")).isEqualTo("64MB");
        assertThat(fence.getString("read_only")).isEqualTo("on");
        // A NOTICE can quote a whole value (a text search cast does) and is no error for plan_rows to cut.
        assertThat(fence.getString("notices")).isEqualTo("error");
        Row writable = runUnguarded("SELECT count(*) AS n FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace"
                + " AND c.relkind IN ('r', 'p', 'v') AND has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')");
        assertThat(writable.getLong("n")).as("tables the plan role may write, even outside a read-only run").isZero();
    }

    /** The agent's check and the superuser's script revoke the same functions. */
    @Test
    void theAgentChecksExactlyWhatPlanRoleSqlRevokes() throws Exception {
        String script;
        try (var in = LocalPostgres.class.getResourceAsStream("plan-role.sql")) {
            script = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        String list = script.substring(script.indexOf("ARRAY["), script.indexOf("])"));
        java.util.Set<String> revoked = new java.util.TreeSet<>();
        java.util.regex.Matcher names = java.util.regex.Pattern.compile("'([a-z_]+)'").matcher(list);
        while (names.find()) {
            revoked.add(names.group(1));
        }
        assertThat(revoked).isEqualTo(new java.util.TreeSet<>(PlanSessions.FORBIDDEN));
        assertThat(script).contains("LIKE '" + PlanSessions.COUNTERS + "'");
    }

    /** The revocations leave the roles Countersign runs as their functions: the executor still names its tenant. */
    @Test
    void theServiceRolesKeepWhatThePlanRoleLost() throws Exception {
        try (Connection executor = TestProperties.connectionAs(LocalPostgres.EXECUTOR_ROLE,
                LocalPostgres.EXECUTOR_PASSWORD);
                PreparedStatement check = executor.prepareStatement(
                        "SELECT count(*) FROM pg_proc p WHERE p.pronamespace = 'pg_catalog'::regnamespace"
                                + " AND (p.proname = ANY (?) OR p.proname LIKE 'pg\\_stat\\_get\\_%')"
                                + " AND NOT has_function_privilege(p.oid, 'EXECUTE')")) {
            check.setArray(1, executor.createArrayOf("text", PlanSessions.FORBIDDEN.toArray()));
            ResultSet rows = check.executeQuery();
            rows.next();
            assertThat(rows.getInt(1)).isZero();
        }
    }
}
