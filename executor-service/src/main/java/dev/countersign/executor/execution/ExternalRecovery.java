package dev.countersign.executor.execution;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.external.ExternalConfig;
import dev.countersign.executor.kind.ExternalKind;
import dev.countersign.executor.policy.TenantPolicyRepository;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduled.ConcurrentExecution;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Finds external calls nobody recorded: actions {@code executing} for longer than any call can take (the instance that
 * claimed one died between the call and the record, or lost the database meanwhile). At start and then periodically, on
 * every instance. An action whose vendor honours the idempotency key is called again with the same key (the vendor
 * answers with what it already did); any other (e-mail) goes to {@code needs_review} and is never sent again without a
 * person.
 * <p>
 * Each stale action is first leased (a compare-and-swap moves its call start to now), so one instance at a time repeats
 * a call and the next repeat waits another stale period. A repeat is skipped (the action goes to a person) when the
 * tenant switched external sends off.
 * <p>
 * Limit: "stale" is a time ({@code countersign.external.stale-after}, checked at start to exceed the longest call); an
 * instance paused longer than that (a stopped VM) may still record its call after the recovery moved the action, and
 * then loses its compare-and-swap: the e-mail was sent once and the action says needs_review, which a person resolves.
 * A repeated ticket call relies on the vendor deduplicating by key, also when the original is still in flight.
 */
@ApplicationScoped
public class ExternalRecovery {

    public static final String ACTOR = "system";

    /** A stale action this instance now holds the lease on, and whether its tenant still allows external sends. */
    private record Leased(ActionRow action, boolean sendsAllowed) {
    }

    public static final String CHANNEL = "recovery";
    private static final Logger LOG = Logger.getLogger(ExternalRecovery.class);
    private static final int BATCH = 100;
    private static final Duration STALE_MARGIN = Duration.ofSeconds(5);

    private final Pool pool;
    private final TenantTransactions transactions;
    private final ActionRepository actions;
    private final ExecutorRegistry executors;
    private final ExternalExecution execution;
    private final ExternalConfig config;
    private final TenantPolicyRepository policies;

    public ExternalRecovery(Pool pool, TenantTransactions transactions, ActionRepository actions,
            ExecutorRegistry executors, ExternalExecution execution, ExternalConfig config,
            TenantPolicyRepository policies) {
        this.policies = policies;
        this.pool = pool;
        this.transactions = transactions;
        this.actions = actions;
        this.executors = executors;
        this.execution = execution;
        this.config = config;
    }

    void onStart(@Observes StartupEvent event) {
        requireStaleAfterLongerThanAnyCall(config, executors.externalKinds());
    }

    /**
     * A call still running when the recovery judges it lost would be repeated (a ticket) or handed to a person while it
     * may still succeed (an e-mail): refuse to start with a stale time not comfortably above the longest call.
     */
    static void requireStaleAfterLongerThanAnyCall(ExternalConfig config, List<ExternalKind> kinds) {
        Duration longest = Duration.ZERO;
        for (ExternalKind kind : kinds) {
            Duration call = kind.longestCall()
                    .plus(ExternalExecution.MAX_BACK_OFF.multipliedBy(Math.max(1, kind.attempts()) - 1L));
            longest = call.compareTo(longest) > 0 ? call : longest;
        }
        if (config.staleAfter().compareTo(longest.plus(STALE_MARGIN)) < 0) {
            throw new IllegalStateException(("countersign.external.stale-after (%s) must exceed the longest external"
                    + " call (%s) by at least %s").formatted(config.staleAfter(), longest, STALE_MARGIN));
        }
    }

    /**
     * A second after start, then every {@code countersign.external.recovery-interval}; one pass at a time on this
     * instance (a pass that repeats slow calls may outlast the interval).
     */
    @Scheduled(identity = "external-recovery", delayed = "1s", every = "${countersign.external.recovery-interval}", skipExecutionIf = Scheduled.ApplicationNotRunning.class, concurrentExecution = ConcurrentExecution.SKIP)
    Uni<Void> recoverOnSchedule() {
        return recover()
                .invoke(count -> {
                    if (count > 0) {
                        LOG.infof("Recovered %d unrecorded external call(s)", count);
                    }
                })
                .onFailure().invoke(failure -> LOG.warnf("External recovery failed, will retry on the next tick: %s",
                        failure.getMessage()))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
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

    /**
     * Takes a lease on the stale action (so no other instance, and no later pass, repeats it meanwhile), then repeats
     * the call where the vendor deduplicates and the tenant still allows external sends, or hands it to a person.
     */
    private Uni<Void> recover(String tenantId, UUID id) {
        Actor recovery = new Actor(tenantId, ACTOR, CHANNEL, ErrorCode.OUTCOME_UNKNOWN.code());
        return transactions.run(recovery, sql -> actions.leaseStaleCall(sql, id, config.staleAfter())
                .flatMap(leased -> leased == null
                        ? Uni.createFrom().item(Optional.<Leased>empty())
                        : policies.externalSends(sql, tenantId)
                                .map(sends -> Optional.of(new Leased(leased, sends.enabled())))))
                .flatMap(lease -> {
                    if (lease.isEmpty()) {
                        return Uni.createFrom().voidItem();
                    }
                    ActionRow action = lease.get().action();
                    ExternalKind executor = executors.externalFor(action.kind()).orElse(null);
                    if (executor != null && executor.attempts() > 1 && lease.get().sendsAllowed()) {
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
