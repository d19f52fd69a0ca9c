package dev.countersign.executor;

import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

import dev.countersign.contracts.TenantIsolation;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.testing.TestProperties;

/** Raw JDBC around the application, for fixtures and for asserting what is really in the database. */
final class Db {

    private Db() {
    }

    static Connection owner() throws SQLException {
        return DriverManager.getConnection(TestProperties.require(TestProperties.OWNER_JDBC_URL),
                LocalPostgres.OWNER_ROLE, LocalPostgres.OWNER_PASSWORD);
    }

    /** The executor's application role: what the running service connects as, under row-level security. */
    static Connection application() throws SQLException {
        return DriverManager.getConnection(TestProperties.require(TestProperties.OWNER_JDBC_URL),
                LocalPostgres.EXECUTOR_ROLE, LocalPostgres.EXECUTOR_PASSWORD);
    }

    /** Names the tenant for the rest of the open transaction, as the services do. */
    static void enterTenant(Connection sql, String tenantId) throws SQLException {
        try (var set = sql.prepareStatement("SELECT " + TenantIsolation.setTenant("?"))) {
            set.setString(1, tenantId);
            set.executeQuery();
        }
    }

    static Connection reader() throws SQLException {
        return DriverManager.getConnection(TestProperties.require(TestProperties.READER_JDBC_URL),
                LocalPostgres.READER_ROLE, LocalPostgres.READER_PASSWORD);
    }

    static String status(UUID actionId) throws SQLException {
        try (var sql = owner(); var query = sql.prepareStatement("SELECT status FROM actions WHERE id = ?")) {
            query.setObject(1, actionId);
            var rows = query.executeQuery();
            return rows.next() ? rows.getString(1) : null;
        }
    }

    /** Waits, up to 15 s, until the action has {@code status} in the database. */
    static void awaitStatus(UUID actionId, String status) {
        await().atMost(Duration.ofSeconds(15)).until(() -> status.equals(status(actionId)));
    }

    static String text(String sqlText, Object... args) throws SQLException {
        try (var sql = owner(); var query = sql.prepareStatement(sqlText)) {
            for (int i = 0; i < args.length; i++) {
                query.setObject(i + 1, args[i]);
            }
            var rows = query.executeQuery();
            return rows.next() ? rows.getString(1) : null;
        }
    }

    static int count(String sqlText, Object... args) throws SQLException {
        try (var sql = owner(); var query = sql.prepareStatement(sqlText)) {
            for (int i = 0; i < args.length; i++) {
                query.setObject(i + 1, args[i]);
            }
            var rows = query.executeQuery();
            rows.next();
            return rows.getInt(1);
        }
    }
}
