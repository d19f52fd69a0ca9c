package dev.countersign.executor.gate;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import dev.countersign.contracts.events.ActionExpired;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.AuditContext;
import dev.countersign.executor.outbox.OutboxRelay;
import dev.countersign.executor.outbox.OutboxWriter;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;

/**
 * Expires undecided actions whose window has closed, on a timer, and announces each with {@code ActionExpired} through
 * the outbox in the same transaction. Every instance may sweep: SKIP LOCKED keeps two sweeps (or a sweep and a confirm)
 * off the same row. Between sweeps an action is also expired lazily when someone tries to decide it.
 */
@ApplicationScoped
public class ExpirySweeper {

    private static final Logger LOG = Logger.getLogger(ExpirySweeper.class);
    static final String ACTOR = "system";
    static final String CHANNEL = "sweep";
    static final String REASON = "the decision window closed";

    private final Pool pool;
    private final ActionRepository actions;
    private final OutboxWriter outbox;
    private final OutboxRelay relay;
    private final AuditContext audit;
    private final Vertx vertx;
    private final ActionsConfig config;
    private volatile long timerId = -1;

    public ExpirySweeper(Pool pool, ActionRepository actions, OutboxWriter outbox, OutboxRelay relay,
            AuditContext audit, Vertx vertx, ActionsConfig config) {
        this.pool = pool;
        this.actions = actions;
        this.outbox = outbox;
        this.relay = relay;
        this.audit = audit;
        this.vertx = vertx;
        this.config = config;
    }

    void onStart(@Observes StartupEvent event) {
        timerId = vertx.setPeriodic(config.sweepInterval().toMillis(), id -> sweep().subscribe().with(
                expired -> {
                    if (expired > 0) {
                        relay.wakeUp();
                    }
                },
                failure -> LOG.warnf("Expiry sweep failed, will retry on the next tick: %s", failure.getMessage())));
    }

    void onStop(@Observes ShutdownEvent event) {
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
        }
    }

    /** One sweep of at most {@code sweepBatch} actions; the number expired. */
    Uni<Integer> sweep() {
        return pool.withTransaction(sql -> audit.actingAs(sql, ACTOR, CHANNEL, REASON)
                .flatMap(ignored -> actions.expireDue(sql, config.sweepBatch()))
                .flatMap(expired -> Multi.createFrom().iterable(expired)
                        .onItem().transformToUniAndConcatenate(row -> outbox.append(sql, OutcomeEvents.expired(row)))
                        .collect().last()
                        .replaceWith(expired.size())));
    }
}
