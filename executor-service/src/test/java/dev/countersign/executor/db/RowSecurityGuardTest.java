package dev.countersign.executor.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.LocalPostgres;

/**
 * {@link RowSecurityGuard}'s question, asked as the roles a deployment might wrongly give the executor, on a migrated
 * database of its own: the executor's role passes; the schema owner (owns every table under row-level security) and a
 * superuser are refused with the reason. Limit: the start-up wiring is exercised by every Quarkus test (they start the
 * executor as its own role, which must pass); a refused start is not.
 */
class RowSecurityGuardTest {

    private static LocalPostgres server;

    @BeforeAll
    static void aMigratedDatabase() throws SQLException {
        server = LocalPostgres.start(0, null);
        try (Connection admin = DriverManager.getConnection(url("postgres"), "postgres", "postgres");
                var sql = admin.createStatement()) {
            sql.execute("CREATE DATABASE guarded OWNER " + LocalPostgres.OWNER_ROLE);
        }
        Flyway.configure().dataSource(url("guarded"), LocalPostgres.OWNER_ROLE, LocalPostgres.OWNER_PASSWORD)
                .placeholders(Map.of("readerRole", LocalPostgres.READER_ROLE, "executorRole",
                        LocalPostgres.EXECUTOR_ROLE, "planRole", LocalPostgres.PLAN_ROLE))
                .load().migrate();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theExecutorsOwnRoleIsHeldByRowLevelSecurity() throws SQLException {
        assertThat(problemFor(LocalPostgres.EXECUTOR_ROLE, LocalPostgres.EXECUTOR_PASSWORD)).isNull();
    }

    @Test
    void theSchemaOwnerIsRefusedWithTheTablesItOwns() throws SQLException {
        assertThat(problemFor(LocalPostgres.OWNER_ROLE, LocalPostgres.OWNER_PASSWORD))
                .contains("owns tables under row-level security").contains("actions").contains("wallets");
    }

    @Test
    void aSuperuserIsRefused() throws SQLException {
        assertThat(problemFor("postgres", "postgres")).contains("superuser or has BYPASSRLS");
    }

    private static String problemFor(String role, String password) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url("guarded"), role, password);
                ResultSet answer = connection.createStatement().executeQuery(RowSecurityGuard.BYPASSES)) {
            answer.next();
            return RowSecurityGuard.problem(answer.getBoolean("privileged"), answer.getString("owned"));
        }
    }

    private static String url(String database) {
        return "jdbc:postgresql://localhost:%d/%s".formatted(server.port(), database);
    }
}
