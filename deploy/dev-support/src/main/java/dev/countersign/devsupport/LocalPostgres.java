package dev.countersign.devsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A real PostgreSQL server from the binaries shipped in Maven jars, with the database and its three login roles: the
 * owner (runs the executor's migrations and owns every table), the executor's application role (no privileges until the
 * migrations grant it rows of its tenant's tables, under row-level security) and the agent's reader role (SELECT only,
 * under the same row-level security).
 * <p>
 * Dev and test only. The passwords are fixed and public; production roles come from the operator (see deploy/k8s).
 */
public final class LocalPostgres implements AutoCloseable {

    public static final String DATABASE = "countersign";
    public static final String OWNER_ROLE = "countersign_owner";
    public static final String OWNER_PASSWORD = "owner-dev-only";
    public static final String EXECUTOR_ROLE = "countersign_executor";
    public static final String EXECUTOR_PASSWORD = "executor-dev-only";
    public static final String READER_ROLE = "countersign_agent";
    public static final String READER_PASSWORD = "agent-dev-only";
    /** The role a plan turn's drafted SELECT runs as, for the person who asked (agent-service, its own pool). */
    public static final String PLAN_ROLE = "countersign_plan";
    public static final String PLAN_PASSWORD = "plan-dev-only";

    /**
     * System property ({@code -Dbench.statements=true}): an embedded server then loads pg_stat_statements and counts
     * every statement, nested ones (in triggers and functions) too, for benchmarks to print where PostgreSQL's time
     * goes. Off by default: counting costs a little on every statement.
     */
    public static final String STATEMENT_STATISTICS = "bench.statements";

    private final EmbeddedPostgres server;
    private final String host;
    private final int port;
    private final String adminUser;
    private final String adminPassword;

    private LocalPostgres(EmbeddedPostgres server, String host, int port, String adminUser, String adminPassword) {
        this.server = server;
        this.host = host;
        this.port = port;
        this.adminUser = adminUser;
        this.adminPassword = adminPassword;
    }

    /**
     * @param port
     *            0 for any free port
     * @param dataDirectory
     *            null for a throw-away directory; otherwise data survives a restart
     */
    public static LocalPostgres start(int port, Path dataDirectory) {
        try {
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setServerConfig("max_connections", "200")
                    // Durable when the data is meant to survive (the local stack); fast for throw-away test data.
                    .setServerConfig("fsync", dataDirectory == null ? "off" : "on")
                    .setServerConfig("synchronous_commit", dataDirectory == null ? "off" : "on");
            if (Boolean.getBoolean(STATEMENT_STATISTICS)) {
                builder.setServerConfig("shared_preload_libraries", "pg_stat_statements")
                        .setServerConfig("pg_stat_statements.track", "all");
            }
            if (port > 0) {
                builder.setPort(port);
            }
            if (dataDirectory != null) {
                builder.setDataDirectory(dataDirectory).setCleanDataDirectory(false);
            }
            EmbeddedPostgres embedded = builder.start();
            bootstrap("localhost", embedded.getPort(), "postgres", "postgres");
            return new LocalPostgres(embedded, "localhost", embedded.getPort(), "postgres", "postgres");
        } catch (IOException e) {
            throw new UncheckedIOException("PostgreSQL did not start", e);
        }
    }

    /**
     * Uses a PostgreSQL server that is already running: creates the database and the two roles on it (idempotent), with
     * an administrator's credentials that are used for nothing else.
     */
    public static LocalPostgres external(String host, int port, String adminUser, String adminPassword) {
        bootstrap(host, port, adminUser, adminPassword);
        return new LocalPostgres(null, host, port, adminUser, adminPassword);
    }

    public int port() {
        return port;
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://%s:%d/%s".formatted(host, port, DATABASE);
    }

    public String reactiveUrl() {
        return "postgresql://%s:%d/%s".formatted(host, port, DATABASE);
    }

    /**
     * A connection as the owner role, for test fixtures and the local stack's demo data. The owner is not subject to
     * row-level security: it sees every tenant.
     */
    public Connection ownerConnection() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), OWNER_ROLE, OWNER_PASSWORD);
    }

    /**
     * A connection to the Countersign database as the server's administrator: benchmarks read pg_stat_statements and
     * grow the database with triggers off.
     */
    public Connection adminConnection() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), adminUser, adminPassword);
    }

    private static void bootstrap(String host, int port, String adminUser, String adminPassword) {
        try (Connection admin = DriverManager.getConnection(
                "jdbc:postgresql://%s:%d/postgres".formatted(host, port), adminUser, adminPassword);
                Statement sql = admin.createStatement()) {
            createRole(sql, OWNER_ROLE, OWNER_PASSWORD);
            createRole(sql, EXECUTOR_ROLE, EXECUTOR_PASSWORD);
            createRole(sql, READER_ROLE, READER_PASSWORD);
            createRole(sql, PLAN_ROLE, PLAN_PASSWORD);
            var exists = sql.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'");
            if (!exists.next()) {
                sql.execute("CREATE DATABASE " + DATABASE + " OWNER " + OWNER_ROLE);
            }
            sql.execute("REVOKE ALL ON DATABASE " + DATABASE + " FROM PUBLIC");
            sql.execute("GRANT CONNECT ON DATABASE " + DATABASE + " TO " + EXECUTOR_ROLE + ", " + READER_ROLE);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create the Countersign database and roles", e);
        }
        try (Connection admin = DriverManager.getConnection(
                "jdbc:postgresql://%s:%d/%s".formatted(host, port, DATABASE), adminUser, adminPassword);
                Statement sql = admin.createStatement()) {
            sql.execute(planRoleFence());
        } catch (SQLException e) {
            throw new IllegalStateException("Could not fence the plan role (plan-role.sql)", e);
        }
    }

    /** deploy/k8s/base/plan-role.sql, which CloudNativePG runs too: the plan role's grants, revocations and limits. */
    private static String planRoleFence() {
        try (InputStream in = LocalPostgres.class.getResourceAsStream("plan-role.sql")) {
            if (in == null) {
                throw new IllegalStateException(
                        "plan-role.sql is not on the class path (dev-support's build copies it)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void createRole(Statement sql, String role, String password) throws SQLException {
        var exists = sql.executeQuery("SELECT 1 FROM pg_roles WHERE rolname = '" + role + "'");
        if (!exists.next()) {
            sql.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
        }
    }

    @Override
    public void close() {
        if (server == null) {
            return;
        }
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
