package dev.countersign.devsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Test;

/**
 * The server LocalPostgres starts is the one of the binaries jar the build put on the class path (the parent's
 * postgres-binaries-* profile for this machine), found by zonky's own OS and architecture detection.
 */
class LocalPostgresTest {

    @Test
    void startsThePostgreSqlVersionTheBuildDeclares() throws SQLException {
        // Surefire passes the parent's ${postgres-binaries.version} (for example 17.6.0 -> server 17.6).
        String declared = System.getProperty("postgres-binaries.version");
        assertThat(declared).as("postgres-binaries.version from the build").isNotBlank();
        String[] parts = declared.split("\\.");
        try (LocalPostgres postgres = LocalPostgres.start(0, null);
                Connection owner = postgres.ownerConnection();
                Statement sql = owner.createStatement();
                ResultSet version = sql.executeQuery("SHOW server_version")) {
            assertThat(version.next()).isTrue();
            assertThat(version.getString(1)).startsWith(parts[0] + "." + parts[1]);
        }
    }
}
