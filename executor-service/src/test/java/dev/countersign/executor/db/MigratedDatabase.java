package dev.countersign.executor.db;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;

import org.flywaydb.core.Flyway;

import dev.countersign.devsupport.LocalPostgres;

/**
 * A PostgreSQL server of a test's own with one database just migrated by today's migrations and never analysed, for
 * tests that must not touch the module's shared database. Close it after the test class.
 */
final class MigratedDatabase implements AutoCloseable {

    /** What Flyway puts in for ${name} in the migrations (the application's configuration names the same roles). */
    static final Map<String, String> PLACEHOLDERS = Map.of("readerRole", LocalPostgres.READER_ROLE,
            "executorRole", LocalPostgres.EXECUTOR_ROLE, "planRole", LocalPostgres.PLAN_ROLE);

    private final LocalPostgres server;
    private final String name;

    private MigratedDatabase(LocalPostgres server, String name) {
        this.server = server;
        this.name = name;
    }

    static MigratedDatabase start(String name) throws SQLException {
        LocalPostgres server = LocalPostgres.start(0, null);
        try (Connection admin = DriverManager.getConnection(url(server, "postgres"), "postgres", "postgres");
                var sql = admin.createStatement()) {
            sql.execute("CREATE DATABASE " + name + " OWNER " + LocalPostgres.OWNER_ROLE);
        }
        Flyway.configure().dataSource(url(server, name), LocalPostgres.OWNER_ROLE, LocalPostgres.OWNER_PASSWORD)
                .placeholders(PLACEHOLDERS).load().migrate();
        return new MigratedDatabase(server, name);
    }

    Connection connectAs(String role, String password) throws SQLException {
        return DriverManager.getConnection(url(server, name), role, password);
    }

    Connection owner() throws SQLException {
        return connectAs(LocalPostgres.OWNER_ROLE, LocalPostgres.OWNER_PASSWORD);
    }

    Connection executor() throws SQLException {
        return connectAs(LocalPostgres.EXECUTOR_ROLE, LocalPostgres.EXECUTOR_PASSWORD);
    }

    private static String url(LocalPostgres server, String database) {
        return "jdbc:postgresql://localhost:%d/%s".formatted(server.port(), database);
    }

    @Override
    public void close() {
        server.close();
    }
}
