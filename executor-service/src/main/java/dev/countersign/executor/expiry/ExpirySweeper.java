package dev.countersign.executor.expiry;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.countersign.executor.action.ActionsConfig;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.lifecycle.ActionLifecycle;
import dev.countersign.executor.outbox.OutboxRelay;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduled.ConcurrentExecution;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Expires undecided actions whose window has closed, on a schedule (quarkus-scheduler), and announces each with
 * {@code ActionExpired} through the outbox in the same transaction ({@link ActionLifecycle#expire}, the one expiry
 * path). Every instance may sweep: SKIP LOCKED keeps two sweeps (or a sweep and a confirm) off the same row. Between
 * sweeps an action is also expired, by the same call, when someone tries to decide it.
 * <p>
 * The search for due actions crosses tenants (the database function {@code actions_due_for_expiry} returns ids and
 * tenants only); each tenant's actions are then expired in a transaction of that tenant, under row-level security.
 */
@ApplicationScoped
public class ExpirySweeper {

    private static final Logger LOG = Logger.getLogger(ExpirySweeper.class);
    public static final String ACTOR = "system";
    public static final String CHANNEL = "sweep";

    private final Pool pool;
    private final TenantTransactions transactions;
    private final ActionLifecycle lifecycle;
    private final OutboxRelay relay;
    private final ActionsConfig config;

    public ExpirySweeper(Pool pool, TenantTransactions transactions, ActionLifecycle lifecycle, OutboxRelay relay,
            ActionsConfig config) {
        this.pool = pool;
        this.transactions = transactions;
        this.lifecycle = lifecycle;
        this.relay = relay;
        this.config = config;
    }

    /** Every {@code countersign.actions.sweep-interval}; a sweep still running when the next is due is not doubled. */
    @Scheduled(identity = "expiry-sweep", every = "${countersign.actions.sweep-interval}", skipExecutionIf = Scheduled.ApplicationNotRunning.class, concurrentExecution = ConcurrentExecution.SKIP)
    Uni<Void> sweepOnSchedule() {
        return sweep()
                .invoke(expired -> {
                    if (expired > 0) {
                        relay.wakeUp();
                    }
                })
                .onFailure().invoke(failure -> LOG.warnf("Expiry sweep failed, will retry on the next tick: %s",
                        failure.getMessage()))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }

    /** One sweep of at most {@code sweepBatch} actions, one transaction per tenant; the number expired. */
    Uni<Integer> sweep() {
        return pool.preparedQuery("SELECT tenant_id, id FROM actions_due_for_expiry($1)")
                .execute(Tuple.of(config.sweepBatch()))
                .flatMap(rows -> {
                    Map<String, List<UUID>> dueByTenant = new LinkedHashMap<>();
                    for (Row row : rows) {
                        dueByTenant.computeIfAbsent(row.getString("tenant_id"), tenant -> new ArrayList<>())
                                .add(row.getUUID("id"));
                    }
                    return Multi.createFrom().iterable(dueByTenant.entrySet())
                            .onItem().transformToUniAndConcatenate(due -> expire(due.getKey(), due.getValue()))
                            .collect().with(java.util.stream.Collectors.summingInt(Integer::intValue));
                });
    }

    private Uni<Integer> expire(String tenantId, List<UUID> ids) {
        return transactions.run(new Actor(tenantId, ACTOR, CHANNEL), sql -> lifecycle.expire(sql, ids))
                .map(List::size);
    }
}
