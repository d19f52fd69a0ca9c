package dev.countersign.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;

/** The agent's own connection pool is the read-only role: asked of the database, not of the configuration. */
@QuarkusTest
@AgentTestResources
class ReadOnlyRoleTest {

    @Inject
    Pool pool;

    @Test
    void theAgentsConnectionsCanWriteNoTable() {
        var row = pool.query("""
                SELECT current_user AS role,
                       bool_or(has_table_privilege(current_user, c.oid, 'INSERT')
                            OR has_table_privilege(current_user, c.oid, 'UPDATE')
                            OR has_table_privilege(current_user, c.oid, 'DELETE')
                            OR has_table_privilege(current_user, c.oid, 'TRUNCATE')) AS can_write,
                       bool_or(has_table_privilege(current_user, c.oid, 'SELECT')) AS can_read,
                       has_schema_privilege(current_user, 'public', 'CREATE') AS can_create
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind = 'r'""")
                .execute().await().atMost(Duration.ofSeconds(10)).iterator().next();

        assertThat(row.getString("role")).isEqualTo("countersign_agent");
        assertThat(row.getBoolean("can_read")).isTrue();
        assertThat(row.getBoolean("can_write")).isFalse();
        assertThat(row.getBoolean("can_create")).isFalse();
    }
}
