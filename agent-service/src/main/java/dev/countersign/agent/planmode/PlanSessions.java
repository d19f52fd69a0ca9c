package dev.countersign.agent.planmode;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.evidence.ReaderGrants;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.TenantIsolation;
import dev.countersign.web.ProblemException;
import io.quarkus.reactive.datasource.ReactiveDataSource;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The plan role's transactions, on its own pool: the only way plan mode touches a statement a model wrote. Every
 * transaction is rolled back, never committed; names the person's reader grant (the runner's word, as a parameter of
 * {@code use_reader_grant}; a statement could name only a grant whose secret it holds anyway), so the database shows
 * that grant's tenant only; and carries its own {@code statement_timeout} and {@code work_mem}. A run's transaction is
 * also READ ONLY and first checks that the role is fenced ({@link #UNFENCED}).
 * <p>
 * Limits: the bounds are PostgreSQL's: {@code statement_timeout} stops a statement between rows and inside most
 * built-ins (the analysis refuses those known not to check, and expressions that explode once inlined),
 * {@code work_mem} caps each sort or hash before it spills, {@code temp_file_limit} (set on the role by a superuser)
 * caps what spills. None of them caps the memory one value takes while PostgreSQL builds it (a value may reach 1 GB
 * there); the server cuts each cell and each error message before it is sent ({@link PlanStatementRunner}), so the
 * agent never receives such a value.
 */
@ApplicationScoped
public class PlanSessions {

    /**
     * Built-in functions the plan role must not be able to execute (deploy/k8s/base/plan-role.sql revokes them from
     * PUBLIC; a test keeps the two lists equal): they change settings, including the tenant; run SQL text or read
     * relations by name; show other sessions' statements, prepared statements or locks; take locks that outlive the
     * transaction; or signal other sessions. Every {@code pg_stat_get_*} counter is revoked too ({@link #COUNTERS}).
     */
    static final List<String> FORBIDDEN = List.of("set_config", "query_to_xml", "query_to_xmlschema",
            "query_to_xml_and_xmlschema", "cursor_to_xml", "cursor_to_xmlschema", "table_to_xml", "table_to_xmlschema",
            "table_to_xml_and_xmlschema", "schema_to_xml", "schema_to_xmlschema", "schema_to_xml_and_xmlschema",
            "database_to_xml", "database_to_xmlschema", "database_to_xml_and_xmlschema", "pg_stat_get_activity",
            "pg_stat_get_backend_activity", "pg_advisory_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock",
            "pg_try_advisory_lock_shared", "pg_advisory_xact_lock", "pg_advisory_xact_lock_shared",
            "pg_try_advisory_xact_lock", "pg_try_advisory_xact_lock_shared", "pg_advisory_unlock",
            "pg_advisory_unlock_shared", "pg_advisory_unlock_all", "pg_cancel_backend", "pg_terminate_backend",
            "pg_notify", "ts_stat", "ts_rewrite", "pg_prepared_statement", "pg_lock_status");

    /** The activity counters' names, as a LIKE pattern: every table's live row counts, whatever the tenant. */
    static final String COUNTERS = "pg\\_stat\\_get\\_%";

    /**
     * What would make the plan role unfenced: a forbidden function it can execute, a superuser or BYPASSRLS role, a
     * table it may SELECT beyond plan mode's relations ($2, a {@code *} suffix a prefix), no temp_file_limit.
     */
    static final String UNFENCED = """
            SELECT (SELECT coalesce(string_agg(p.oid::regprocedure::text, ', ' ORDER BY p.oid), '')
                    FROM pg_catalog.pg_proc p
                    WHERE p.pronamespace = 'pg_catalog'::regnamespace
                      AND (p.proname = ANY ($1) OR p.proname LIKE $3)
                      AND pg_catalog.has_function_privilege(p.oid, 'EXECUTE')) AS executable,
                   (SELECT r.rolsuper OR r.rolbypassrls FROM pg_catalog.pg_roles r WHERE r.rolname = current_user)
                       AS privileged,
                   (SELECT coalesce(string_agg(c.oid::regclass::text, ', ' ORDER BY c.oid), '')
                    FROM pg_catalog.pg_class c
                    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
                      AND pg_catalog.has_table_privilege(c.oid, 'SELECT')
                      AND NOT EXISTS (SELECT 1 FROM unnest($2::text[]) o(name)
                                      WHERE c.relname = o.name OR (o.name LIKE '%*'
                                          AND starts_with(c.relname, rtrim(o.name, '*'))))) AS readable,
                   pg_catalog.current_setting('temp_file_limit') AS temp_file_limit""";

    private static final String NAME_GRANT = "SELECT " + TenantIsolation.useGrant("$1");

    private final Pool pool;
    private final PlanConfig config;
    private final ReaderGrants grants;

    public PlanSessions(@ReactiveDataSource("plan") Pool pool, PlanConfig config, ReaderGrants grants) {
        this.pool = pool;
        this.config = config;
        this.grants = grants;
    }

    /**
     * A read-write transaction (a temporary view needs one), rolled back: for analysing a statement, never running it.
     */
    <T> Uni<T> analysing(Person person, Function<SqlConnection, Uni<T>> work) {
        return inTransaction(person, false, work);
    }

    /** A READ ONLY transaction, rolled back, on a role checked to be fenced: for running a statement. */
    <T> Uni<T> running(Person person, Function<SqlConnection, Uni<T>> work) {
        return inTransaction(person, true, sql -> sql.preparedQuery(UNFENCED)
                .execute(Tuple.of(FORBIDDEN.toArray(String[]::new), config.relations().toArray(String[]::new),
                        COUNTERS))
                .flatMap(rows -> {
                    String unfenced = unfenced(rows.iterator().next());
                    if (unfenced != null) {
                        return Uni.createFrom().failure(new ProblemException(ErrorCode.PLAN_ROLE_UNFENCED,
                                ("Plan runs are switched off on this server: its plan role is not fenced (%s). Nothing"
                                        + " was run. An operator must run deploy/k8s/base/plan-role.sql as a superuser"
                                        + " and grant the plan role nothing beyond migration V18.")
                                        .formatted(unfenced)));
                    }
                    return work.apply(sql);
                }));
    }

    /** Why the plan role is not fenced, or null when it is. */
    private static String unfenced(Row check) {
        if (!check.getString("executable").isEmpty()) {
            return "it can execute " + check.getString("executable");
        }
        if (!Boolean.FALSE.equals(check.getBoolean("privileged"))) {
            return "it is a superuser or exempt from row-level security";
        }
        if (!check.getString("readable").isEmpty()) {
            return "it may read " + check.getString("readable");
        }
        if ("-1".equals(check.getString("temp_file_limit"))) {
            return "temp_file_limit is not set";
        }
        return null;
    }

    private <T> Uni<T> inTransaction(Person person, boolean readOnly, Function<SqlConnection, Uni<T>> work) {
        return grants.secretFor(person).flatMap(secret -> inTransaction(secret, readOnly, work));
    }

    private <T> Uni<T> inTransaction(String grantSecret, boolean readOnly, Function<SqlConnection, Uni<T>> work) {
        Duration timeout = config.runTimeout();
        String settings = (readOnly ? "SET TRANSACTION READ ONLY; " : "")
                + "SET LOCAL statement_timeout = '" + timeout.toMillis() + "ms'; "
                + "SET LOCAL work_mem = '" + config.workMem() + "'; "
                // A NOTICE is sent to the client whole and is no error for plan_rows to cut (a text search cast
                // quotes its whole input in one): none reaches the agent.
                + "SET LOCAL client_min_messages = error";
        return pool.withConnection(sql -> sql.begin().flatMap(transaction -> sql.query(settings).execute()
                // The grant as a parameter: its secret never appears in statement text (logs, statistics).
                .flatMap(set -> sql.preparedQuery(NAME_GRANT).execute(Tuple.of(grantSecret)))
                .flatMap(ignored -> work.apply(sql))
                .onItemOrFailure().call((item, failure) -> transaction.rollback().onFailure().recoverWithNull())));
    }
}
