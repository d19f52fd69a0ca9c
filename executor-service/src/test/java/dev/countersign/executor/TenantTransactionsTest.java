package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * TenantTransactions sends BEGIN, its settings statement and the work's first statement together (pipelining), and
 * COMMIT by hand (or with the work's last statements): the work must run under the settings, a read-only transaction
 * must stay read-only, when the settings fail nothing the work sent with them is committed, and whatever fails, the
 * connection goes back to the pool with no transaction open on it.
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

    @Test
    void aWorkThatFailsAfterWritingCommitsNothingAndLeavesItsConnectionOutOfAnyTransaction() throws Exception {
        UUID event = UUID.randomUUID();
        int[] backend = new int[1];
        // The http channel runs on its own pool, which nothing else uses during this test: the connection's state
        // read below is the one this transaction left.
        assertThatThrownBy(() -> transactions.run(new Actor("t-" + UUID.randomUUID(), "alice", "http"), sql -> sql
                .preparedQuery(INSERT_OUTBOX).execute(Tuple.of(event))
                .flatMap(inserted -> sql.query("SELECT pg_backend_pid()").execute())
                .map(rows -> {
                    backend[0] = rows.iterator().next().getInteger(0);
                    throw new IllegalStateException("the work fails in Java, after its write answered");
                }))
                .await().atMost(Duration.ofSeconds(10)))
                .hasMessageContaining("fails in Java");

        assertThat(Db.count("SELECT count(*) FROM outbox WHERE event_id = ?", event)).isZero();
        assertThat(stateOf(backend[0])).as("back in the pool idle, no transaction open").isEqualTo("idle");
    }

    @Test
    void theLastStatementsSentWithTheCommitCommitAndRunTheTasksWaitingForIt() throws Exception {
        UUID first = UUID.randomUUID();
        UUID last = UUID.randomUUID();
        AtomicInteger tasksRun = new AtomicInteger();
        transactions.run(new Actor("t-" + UUID.randomUUID(), "alice", "http"), sql -> sql
                .preparedQuery(INSERT_OUTBOX).execute(Tuple.of(first))
                .invoke(() -> transactions.afterCommit(sql, tasksRun::incrementAndGet))
                .flatMap(inserted -> transactions.commitWith(sql,
                        sql.preparedQuery(INSERT_OUTBOX).execute(Tuple.of(last)))))
                .await().atMost(Duration.ofSeconds(10));

        assertThat(Db.count("SELECT count(*) FROM outbox WHERE event_id IN (?, ?)", first, last)).isEqualTo(2);
        assertThat(tasksRun).hasValue(1);
    }

    @Test
    void whenALastStatementSentWithTheCommitFailsNothingCommits() throws Exception {
        UUID first = UUID.randomUUID();
        AtomicInteger tasksRun = new AtomicInteger();
        int[] backend = new int[1];
        assertThatThrownBy(() -> transactions.run(new Actor("t-" + UUID.randomUUID(), "alice", "http"), sql -> sql
                .preparedQuery(INSERT_OUTBOX).execute(Tuple.of(first))
                .invoke(() -> transactions.afterCommit(sql, tasksRun::incrementAndGet))
                .flatMap(inserted -> sql.query("SELECT pg_backend_pid()").execute())
                .invoke(rows -> backend[0] = rows.iterator().next().getInteger(0))
                // The same event id again: the outbox's key refuses it, and the COMMIT behind it rolls back.
                .flatMap(pid -> transactions.commitWith(sql,
                        sql.preparedQuery(INSERT_OUTBOX).execute(Tuple.of(first)))))
                .await().atMost(Duration.ofSeconds(10)))
                .hasMessageContaining("duplicate key");

        assertThat(Db.count("SELECT count(*) FROM outbox WHERE event_id = ?", first)).isZero();
        assertThat(tasksRun).hasValue(0);
        assertThat(stateOf(backend[0])).isEqualTo("idle");
    }

    @Test
    void aLastStepThatFailsAsItIsSentSendsNoCommitAndNothingCommits() throws Exception {
        UUID first = UUID.randomUUID();
        assertThatThrownBy(() -> transactions.run(new Actor("t-" + UUID.randomUUID(), "alice", "http"), sql -> sql
                .preparedQuery(INSERT_OUTBOX).execute(Tuple.of(first))
                .flatMap(inserted -> transactions.commitWith(sql,
                        Uni.createFrom().failure(new IllegalStateException("the last step failed in Java")))))
                .await().atMost(Duration.ofSeconds(10)))
                .hasMessageContaining("failed in Java");

        assertThat(Db.count("SELECT count(*) FROM outbox WHERE event_id = ?", first)).isZero();
    }

    /** A work that recovers from its commitWith's failure has not committed: it must not end as if it had. */
    @Test
    void aWorkThatRecoveredFromItsCommitWithFailureIsRolledBackNotReturnedOpen() throws Exception {
        UUID first = UUID.randomUUID();
        int[] backend = new int[1];
        assertThatThrownBy(() -> transactions.run(new Actor("t-" + UUID.randomUUID(), "alice", "http"), sql -> sql
                .preparedQuery(INSERT_OUTBOX).execute(Tuple.of(first))
                .flatMap(inserted -> sql.query("SELECT pg_backend_pid()").execute())
                .invoke(rows -> backend[0] = rows.iterator().next().getInteger(0))
                .flatMap(pid -> transactions.commitWith(sql,
                        Uni.createFrom().<Object>failure(new IllegalStateException("the last step failed in Java")))
                        .onFailure().recoverWithNull()))
                .await().atMost(Duration.ofSeconds(10)))
                .hasMessageContaining("without the COMMIT");

        assertThat(Db.count("SELECT count(*) FROM outbox WHERE event_id = ?", first)).isZero();
        assertThat(stateOf(backend[0])).isEqualTo("idle");
    }

    /**
     * A work that swallows a statement's failure (no savepoint) has an aborted transaction: its end must fail, not
     * answer as committed (a plain COMMIT there rolls back and answers without an error).
     */
    @Test
    void aWorkThatSwallowedAFailedStatementIsNotReportedAsCommitted() throws Exception {
        UUID first = UUID.randomUUID();
        AtomicInteger tasksRun = new AtomicInteger();
        assertThatThrownBy(() -> transactions.run(new Actor("t-" + UUID.randomUUID(), "alice", "http"), sql -> sql
                .preparedQuery(INSERT_OUTBOX).execute(Tuple.of(first))
                .invoke(() -> transactions.afterCommit(sql, tasksRun::incrementAndGet))
                .flatMap(inserted -> sql.preparedQuery(INSERT_OUTBOX).execute(Tuple.of(first))
                        .onFailure().recoverWithNull()))
                .await().atMost(Duration.ofSeconds(10)))
                .hasMessageContaining("aborted");

        assertThat(Db.count("SELECT count(*) FROM outbox WHERE event_id = ?", first)).isZero();
        assertThat(tasksRun).hasValue(0);
    }

    /**
     * A caller that goes away (an HTTP request cancelled) while its transaction waits for a connection or runs must not
     * keep the connection: far more cancelled transactions than the http pool holds (8), then one that must still get a
     * connection at once. The work of a cancelled transaction runs to its end (as with the pool's withTransaction);
     * what is checked is that the connection comes back.
     */
    @Test
    void cancelledCallersLeaveNoConnectionBehind() {
        Actor actor = new Actor("t-" + UUID.randomUUID(), "alice", "http");
        for (int i = 0; i < 40; i++) {
            transactions.run(actor, sql -> sql.query("SELECT pg_sleep(0.005)").execute()).subscribe()
                    .with(ignored -> {
                    }, ignored -> {
                    }).cancel();
        }
        String seen = transactions.run(actor, sql -> sql.query("SELECT current_tenant()").execute()
                .map(rows -> rows.iterator().next().getString(0)))
                .await().atMost(Duration.ofSeconds(10));
        assertThat(seen).isEqualTo(actor.tenantId());
    }

    @Test
    void aDeliveryIsNotClaimedInATransactionThatNamedNoTenant() throws Exception {
        UUID event = UUID.randomUUID();
        // What would run should BEGIN fail: the claim alone, in its own implicit transaction, no tenant named.
        try (var app = Db.application(); var claim = app.prepareStatement("SELECT first_delivery('test', ?)")) {
            claim.setObject(1, event);
            assertThatThrownBy(claim::executeQuery).isInstanceOf(SQLException.class)
                    .satisfies(refused -> assertThat(((SQLException) refused).getSQLState()).isEqualTo("CS401"));
        }
        assertThat(Db.count("SELECT count(*) FROM processed_events WHERE event_id = ?", event)).isZero();
    }

    /** A backend's state and, if a transaction is open on it, its start (read as its own role, which may see both). */
    private static String stateOf(int backend) throws SQLException {
        try (var app = Db.application()) {
            return Db.text(app, "SELECT state || coalesce('/' || xact_start::text, '') FROM pg_stat_activity"
                    + " WHERE pid = ?", backend);
        }
    }

    private static final String INSERT_OUTBOX = "INSERT INTO outbox (event_id, tenant_id, topic, message_key, payload)"
            + " VALUES ($1, current_tenant(), 't', 'k', '{}')";
}
