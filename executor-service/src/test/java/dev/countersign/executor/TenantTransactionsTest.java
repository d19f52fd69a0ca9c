package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * TenantTransactions sends its settings statement and the work's first statement together (pipelining): the work must
 * run under the settings, a read-only transaction must stay read-only, and when the settings fail nothing the work sent
 * with them is committed.
 */
@QuarkusTest
@ExecutorTestResources
class TenantTransactionsTest {

    @Inject
    TenantTransactions transactions;

    @Test
    void theWorksFirstStatementRunsUnderTheSettingsSentWithIt() {
        String tenant = "t-" + UUID.randomUUID();
        String seen = transactions.run(new Actor(tenant, "alice", "http"), sql -> sql
                .query("SELECT current_tenant() || '/' || current_setting('countersign.actor')").execute()
                .map(rows -> rows.iterator().next().getString(0)))
                .await().atMost(Duration.ofSeconds(10));
        assertThat(seen).isEqualTo(tenant + "/alice");
    }

    @Test
    void aReadOnlyTransactionRefusesAWriteSentWithItsSettings() {
        UUID event = UUID.randomUUID();
        assertThatThrownBy(() -> transactions.read("t-" + UUID.randomUUID(), sql -> sql
                .preparedQuery("INSERT INTO outbox (event_id, tenant_id, topic, message_key, payload)"
                        + " VALUES ($1, current_tenant(), 't', 'k', '{}')")
                .execute(Tuple.of(event)))
                .await().atMost(Duration.ofSeconds(10)))
                .hasMessageContaining("read-only");
    }

    @Test
    void whenTheSettingsFailTheWorkSentWithThemCommitsNothing() throws Exception {
        UUID event = UUID.randomUUID();
        // PostgreSQL refuses a NUL in text, so the settings statement fails; first_delivery (an owner function, no
        // row-level security) is the work, already on its way.
        assertThatThrownBy(() -> transactions.run(new Actor("t-\u0000", "alice", "http"), sql -> sql
                .preparedQuery("SELECT first_delivery($1, $2)").execute(Tuple.of("test", event)))
                .await().atMost(Duration.ofSeconds(10)))
                .isInstanceOf(Exception.class);
        assertThat(Db.count("SELECT count(*) FROM processed_events WHERE event_id = ?", event)).isZero();
    }
}
