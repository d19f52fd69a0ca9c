package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.countersign.contracts.events.ActionRejected;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.outbox.OutboxWriter;
import io.quarkus.test.junit.QuarkusTest;

/**
 * An outcome PostgreSQL cannot store as jsonb (a rejected proposal whose requester carries a NUL) still reaches the
 * outbox, and only the outbox, under both plans PostgreSQL may pick for a prepared statement: a custom plan (each
 * connection's first five runs, or any run with the statement cache off) folds casts of parameters while planning.
 */
@QuarkusTest
@ExecutorTestResources
class OutboxWriterTest {

    @Inject
    TenantTransactions transactions;

    @Inject
    OutboxWriter outbox;

    @ParameterizedTest
    @ValueSource(strings = {"force_custom_plan", "force_generic_plan"})
    void anOutcomeTheLedgerCannotHoldIsAppendedToTheOutboxAlone(String planMode) throws Exception {
        TestTenant tenant = TestTenant.withCheckingWallet();
        UUID actionId = UUID.randomUUID();
        var rejected = new ActionRejected(UUID.randomUUID(), ActionRejected.SCHEMA_VERSION, Instant.now(), actionId,
                tenant.id(), "alice\u0000", "conversation-1", "create_transaction", "validation_failed",
                "the proposal could not be stored");

        transactions.run(new Actor(tenant.id(), "", TenantTransactions.AGENT), sql -> sql
                .query("SET LOCAL plan_cache_mode = " + planMode).execute()
                .flatMap(ignored -> outbox.append(sql, rejected)))
                .await().atMost(Duration.ofSeconds(10));

        assertThat(Db.count("SELECT count(*) FROM outbox WHERE message_key = ?", actionId.toString())).isEqualTo(1);
        assertThat(Db.count("SELECT count(*) FROM conversation_events WHERE event_id = ?", rejected.eventId()))
                .isZero();
    }
}
