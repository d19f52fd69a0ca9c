package dev.countersign.executor.gate;

import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.TenantTransactions;
import dev.countersign.executor.action.TenantTransactions.Actor;
import dev.countersign.executor.external.ExternalConfig;
import dev.countersign.executor.external.ExternalExecutor;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Finds external calls nobody recorded: actions {@code executing} for longer than any call can take (the instance that
 * claimed one died between the call and the record, or lost the database meanwhile). At start and then periodically, on
 * every instance. An action whose vendor honours the idempotency key is called again with the same key (the vendor
 * answers with what it already did); any other (e-mail) goes to {@code needs_review} and is never sent again without a
 * person.
 * <p>
 * Limit: "stale" is a time ({@code countersign.external.stale-after}); an instance paused longer than that (a stopped
 * VM) may still record its call after the recovery moved the action, and then loses its compare-and-swap: the e-mail
 * was sent once and the action says needs_review, which a person resolves.
 */
@ApplicationScoped
public class ExternalRecovery {

    static final String ACTOR = "system";
    static final String CHANNEL = "recovery";
    private static final Logger LOG = Logger.getLogger(ExternalRecovery.class);
    private static final int BATCH = 100;

    private final Pool pool;
    private final TenantTransactions transactions;
    private final ActionRepository actions;
    private final ExecutorRegistry executors;
    private final ExternalExecution execution;
    private final ExternalConfig config;
    private final Vertx vertx;
    private volatile long timerId = -1;

    public ExternalRecovery(Pool pool, TenantTransactions transactions, ActionRepository actions,
            ExecutorRegistry executors, ExternalExecution execution, ExternalConfig config, Vertx vertx) {
        this.pool = pool;
        this.transactions = transactions;
        this.actions = actions;
        this.executors = executors;
        this.execution = execution;
        this.config = config;
        this.vertx = vertx;
    }

    void onStart(@Observes StartupEvent event) {
        vertx.setTimer(1000, first -> tick());
        timerId = vertx.setPeriodic(config.recoveryInterval().toMillis(), id -> tick());
    }

    void onStop(@Observes ShutdownEvent event) {
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
        }
    }

    private void tick() {
        recover().subscribe().with(count -> {
            if (count > 0) {
                LOG.infof("Recovered %d unrecorded external call(s)", count);
            }
        }, failure -> LOG.warnf("External recovery failed, will retry on the next tick: %s", failure.getMessage()));
    }

    /** One pass; the number of stale actions looked at. */
    Uni<Integer> recover() {
        return pool.preparedQuery("SELECT tenant_id, id FROM actions_stale_executing(make_interval(secs => $1), $2)")
                .execute(Tuple.of((double) config.staleAfter().toSeconds(), BATCH))
                .flatMap(rows -> Multi.createFrom().iterable(rows)
                        .onItem().transformToUniAndConcatenate(row -> recover(row.getString("tenant_id"),
                                row.getUUID("id")))
                        .collect().asList().map(java.util.List::size));
    }

    private Uni<Void> recover(String tenantId, UUID id) {
        // Read only: the compare-and-swap of the record decides between this recovery and a late original.
        Actor recovery = new Actor(tenantId, ACTOR, CHANNEL, ErrorCode.OUTCOME_UNKNOWN.code());
        return transactions.run(recovery, sql -> actions.find(sql, id, tenantId))
                .flatMap(action -> {
                    if (action == null || action.status() != ActionStatus.EXECUTING) {
                        return Uni.createFrom().voidItem();
                    }
                    ExternalExecutor executor = executors.externalFor(action.kind()).orElse(null);
                    if (executor != null && executor.attempts() > 1) {
                        LOG.infof("Calling again for unrecorded action %s with its idempotency key", id);
                        return execution.callAndRecord(action).replaceWithVoid();
                    }
                    return execution.record(action, ActionStatus.EXECUTING, new ExternalExecution.CallOutcome.Unknown(
                            "the executor stopped between claiming this call and recording it; it may or may not"
                                    + " have been sent: check before resolving"),
                            ACTOR, CHANNEL).replaceWithVoid();
                });
    }
}
