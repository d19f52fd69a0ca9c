package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

import dev.countersign.contracts.TenantIsolation;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.testing.ReaderGrantIssuer;
import dev.countersign.devsupport.testing.TestProperties;

/** Raw JDBC around the application, for fixtures and for asserting what is really in the database. */
final class Db {

    private Db() {
    }

    static Connection owner() throws SQLException {
        return TestProperties.ownerConnection();
    }

    /** The executor's application role: what the running service connects as, under row-level security. */
    static Connection application() throws SQLException {
        return TestProperties.connectionAs(LocalPostgres.EXECUTOR_ROLE, LocalPostgres.EXECUTOR_PASSWORD);
    }

    /** Names the tenant for the rest of the open transaction, as the services do. */
    static void enterTenant(Connection sql, String tenantId) throws SQLException {
        try (var set = sql.prepareStatement("SELECT " + TenantIsolation.setTenant("?"))) {
            set.setString(1, tenantId);
            set.executeQuery();
        }
    }

    /**
     * Runs each statement as the application role in {@code tenantId}'s transaction, around the application, and
     * asserts PostgreSQL refuses it with {@code sqlState}; nothing is left behind.
     */
    static void refusedAsApplication(String tenantId, String sqlState, String... statements) throws SQLException {
        try (var app = application()) {
            refused(app, tenantId, sqlState, statements);
        }
    }

    /** As {@link #refusedAsApplication}, as the agent's reader role under a grant of alice of {@code tenantId}. */
    static void refusedAsReader(String tenantId, String sqlState, String... statements) throws SQLException {
        try (var reader = reader()) {
            reader.setAutoCommit(false);
            enterAsReader(reader, tenantId, "alice");
            refused(reader, sqlState, statements);
        }
    }

    /** A reader grant of {@code userId} of {@code tenantId}, minted as the executor mints it; answers the secret. */
    static String grant(String tenantId, String userId) throws SQLException {
        return ReaderGrantIssuer.grant(tenantId, userId);
    }

    /** Names a fresh grant of {@code userId} of {@code tenantId} for the rest of the open transaction, as the agent. */
    static void enterAsReader(Connection sql, String tenantId, String userId) throws SQLException {
        useGrant(sql, grant(tenantId, userId));
    }

    /** Names the grant for the rest of the open transaction, as the agent's roles do. */
    static void useGrant(Connection sql, String secret) throws SQLException {
        try (var use = sql.prepareStatement("SELECT " + TenantIsolation.useGrant("?"))) {
            use.setString(1, secret);
            use.executeQuery();
        }
    }

    /**
     * In {@code tenantId}'s transaction, so that what refuses is the rule under test, not the missing tenant (which is
     * refused too, SQLSTATE CS401).
     */
    private static void refused(Connection sql, String tenantId, String sqlState, String... statements)
            throws SQLException {
        sql.setAutoCommit(false);
        enterTenant(sql, tenantId);
        refused(sql, sqlState, statements);
    }

    private static void refused(Connection sql, String sqlState, String... statements) throws SQLException {
        for (String statement : statements) {
            var savepoint = sql.setSavepoint();
            assertThatThrownBy(() -> sql.createStatement().execute(statement)).as(statement)
                    .isInstanceOfSatisfying(SQLException.class,
                            e -> assertThat(e.getSQLState()).as(statement).isEqualTo(sqlState));
            sql.rollback(savepoint);
        }
        sql.rollback();
    }

    static Connection reader() throws SQLException {
        return TestProperties.connectionAs(LocalPostgres.READER_ROLE, LocalPostgres.READER_PASSWORD);
    }

    static String status(UUID actionId) throws SQLException {
        try (var sql = owner(); var query = sql.prepareStatement("SELECT status FROM actions WHERE id = ?")) {
            query.setObject(1, actionId);
            var rows = query.executeQuery();
            return rows.next() ? rows.getString(1) : null;
        }
    }

    /**
     * Waits until some transaction waits for a lock: the record a test sent is being processed and waits for the test's
     * own lock, so what the test sends next comes behind it.
     */
    static void awaitALockWait() {
        dev.countersign.devsupport.testing.Waits.await().atMost(java.time.Duration.ofSeconds(15))
                .until(() -> count("SELECT count(*) FROM pg_locks WHERE NOT granted") > 0);
    }

    /**
     * Closes the action's decision window while {@code decide} starts a decision on it: the window is moved back in an
     * uncommitted transaction that holds the row, the decision waits for the row, and the commit hands it over. The
     * expiry sweep sees only committed windows and skips locked rows, so the decision, not the sweep, finds the window
     * closed.
     */
    static void closeTheWindowWhile(UUID actionId, Runnable decide) throws SQLException {
        try (var owner = owner()) {
            owner.setAutoCommit(false);
            try (var rewind = owner.prepareStatement(
                    "UPDATE actions SET expires_at = proposed_at + interval '1 millisecond' WHERE id = ?")) {
                rewind.setObject(1, actionId);
                rewind.executeUpdate();
            }
            decide.run();
            awaitALockWait();
            owner.commit();
        }
    }

    /** The channel the action's expiry was recorded through (the sweep's, or the decision's that found it closed). */
    static String expiryChannel(UUID actionId) throws SQLException {
        return text("SELECT channel FROM action_history WHERE action_id = ? AND to_status = 'expired'", actionId);
    }

    /** Waits, up to 15 s, until the action has {@code status} in the database. */
    static void awaitStatus(UUID actionId, String status) {
        await().atMost(Duration.ofSeconds(15)).until(() -> status.equals(status(actionId)));
    }

    /** The first column of the first row, as the owner; null if there is no row. */
    static String text(String sqlText, Object... args) throws SQLException {
        try (var sql = owner(); var query = bound(sql, sqlText, args)) {
            var rows = query.executeQuery();
            return rows.next() ? rows.getString(1) : null;
        }
    }

    /** The first column of the first row, on {@code sql} (in its open transaction); null if there is no row. */
    static String text(Connection sql, String sqlText, Object... args) throws SQLException {
        try (var query = bound(sql, sqlText, args)) {
            var rows = query.executeQuery();
            return rows.next() ? rows.getString(1) : null;
        }
    }

    /** A count, as the owner. */
    static int count(String sqlText, Object... args) throws SQLException {
        try (var sql = owner()) {
            return count(sql, sqlText, args);
        }
    }

    /** A count, on {@code sql} (whose role and transaction decide what it sees). */
    static int count(Connection sql, String sqlText, Object... args) throws SQLException {
        try (var query = bound(sql, sqlText, args)) {
            var rows = query.executeQuery();
            rows.next();
            return rows.getInt(1);
        }
    }

    private static PreparedStatement bound(Connection sql, String sqlText, Object... args) throws SQLException {
        PreparedStatement query = sql.prepareStatement(sqlText);
        try {
            for (int i = 0; i < args.length; i++) {
                query.setObject(i + 1, args[i]);
            }
            return query;
        } catch (SQLException e) {
            query.close();
            throw e;
        }
    }
}
