package dev.countersign.devsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A real PostgreSQL server from the binaries shipped in Maven jars, with the database and the two login roles the
 * services use: the executor's owner role (writes) and the agent's reader role (no privileges until the executor's
 * migrations grant it SELECT).
 * <p>
 * Dev and test only. The passwords are fixed and public; production roles come from the operator (see deploy/k8s).
 */
public final class LocalPostgres implements AutoCloseable {

    public static final String DATABASE = "countersign";
    public static final String OWNER_ROLE = "countersign_executor";
    public static final String OWNER_PASSWORD = "executor-dev-only";
    public static final String READER_ROLE = "countersign_agent";
    public static final String READER_PASSWORD = "agent-dev-only";

    private final EmbeddedPostgres server;

    private LocalPostgres(EmbeddedPostgres server) {
        this.server = server;
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
                    .setServerConfig("fsync", dataDirectory == null ? "off" : "on");
            if (port > 0) {
                builder.setPort(port);
            }
            if (dataDirectory != null) {
                builder.setDataDirectory(dataDirectory).setCleanDataDirectory(false);
            }
            LocalPostgres postgres = new LocalPostgres(builder.start());
            postgres.bootstrap();
            return postgres;
        } catch (IOException e) {
            throw new UncheckedIOException("PostgreSQL did not start", e);
        }
    }

    public int port() {
        return server.getPort();
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://localhost:%d/%s".formatted(port(), DATABASE);
    }

    public String reactiveUrl() {
        return "postgresql://localhost:%d/%s".formatted(port(), DATABASE);
    }

    /** A connection as the owner role, for test fixtures and the local stack's demo data. */
    public Connection ownerConnection() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), OWNER_ROLE, OWNER_PASSWORD);
    }

    private void bootstrap() {
        try (Connection admin = DriverManager.getConnection(
                "jdbc:postgresql://localhost:%d/postgres".formatted(port()), "postgres", "postgres");
                Statement sql = admin.createStatement()) {
            createRole(sql, OWNER_ROLE, OWNER_PASSWORD);
            createRole(sql, READER_ROLE, READER_PASSWORD);
            var exists = sql.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'");
            if (!exists.next()) {
                sql.execute("CREATE DATABASE " + DATABASE + " OWNER " + OWNER_ROLE);
            }
            sql.execute("REVOKE ALL ON DATABASE " + DATABASE + " FROM PUBLIC");
            sql.execute("GRANT CONNECT ON DATABASE " + DATABASE + " TO " + READER_ROLE);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create the Countersign database and roles", e);
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
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
