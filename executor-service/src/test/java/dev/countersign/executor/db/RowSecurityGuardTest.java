package dev.countersign.executor.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

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

    private static MigratedDatabase database;

    @BeforeAll
    static void aMigratedDatabase() throws SQLException {
        database = MigratedDatabase.start("guarded");
    }

    @AfterAll
    static void stop() {
        if (database != null) {
            database.close();
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
        try (Connection connection = database.connectAs(role, password);
                ResultSet answer = connection.createStatement().executeQuery(RowSecurityGuard.BYPASSES)) {
            answer.next();
            return RowSecurityGuard.problem(answer.getBoolean("privileged"), answer.getString("owned"));
        }
    }

}
