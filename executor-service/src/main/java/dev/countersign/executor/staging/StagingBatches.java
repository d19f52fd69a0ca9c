package dev.countersign.executor.staging;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import dev.countersign.contracts.events.ActionProposed;
import dev.countersign.executor.telemetry.ActionTelemetry;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Group commit for staging: proposals that arrive while every staging transaction is busy wait here, and the next free
 * transaction stages up to {@code PROPOSAL_BATCH_SIZE} of them together, all of one tenant (the oldest waiting
 * proposal's), in one transaction ({@link StagingService#stage}): one commit, and one flush of the write-ahead log, for
 * the lot. At most {@code PROPOSAL_TRANSACTIONS} staging transactions run at once in this instance. A proposal that
 * finds a transaction free is staged at once, alone, so batches form only under load, and only as large as the backlog.
 * <p>
 * Why one tenant per transaction: row-level security follows the tenant the transaction named, and the database's
 * commit-time check that an action applied on arrival spent the auto-apply budget (R__auto_apply_budget.sql) reads
 * under the tenant named last; every transaction on tenant data names one tenant, here too.
 * <p>
 * If a batch fails (a proposal PostgreSQL refuses, a deadlock, a lost connection), nothing of it is staged, and each of
 * its proposals is staged again alone, one after another, so each ends with its own outcome as if it had never been in
 * a batch. Each proposal's answer is delivered on the Vert.x context it was submitted on.
 * <p>
 * Limits: a proposal waiting on a lock holds up the others of its batch until it gets it (the lanes around this only
 * keep proposals of other batches moving), and the tenant's auto-apply budget lock, once one proposal of a batch spends
 * it, is held until the batch commits. Two batches of one tenant that take the same locks in opposite orders deadlock;
 * PostgreSQL breaks that after {@code deadlock_timeout} (1 s) and the losing batch is staged again alone. Every
 * application on arrival in a batch opens two subtransactions (PostgreSQL keeps 64 per transaction in shared memory
 * before other sessions' snapshots slow down), which the default batch size of 16 stays below.
 */
@ApplicationScoped
public class StagingBatches {

    private static final Logger LOG = Logger.getLogger(StagingBatches.class);

    private final StagingService staging;
    private final ActionTelemetry telemetry;
    private final Vertx vertx;
    private final int batchSize;
    private final int transactions;
    private final Deque<Waiting> waiting = new ArrayDeque<>();
    private int running;

    public StagingBatches(StagingService staging, ActionTelemetry telemetry, Vertx vertx, MeterRegistry registry,
            @ConfigProperty(name = "countersign.proposals.batch-size", defaultValue = "16") int batchSize,
            @ConfigProperty(name = "countersign.proposals.transactions", defaultValue = "4") int transactions) {
        if (batchSize < 1 || transactions < 1) {
            throw new IllegalArgumentException("the staging batch size and transactions must be at least 1");
        }
        this.staging = staging;
        this.telemetry = telemetry;
        this.vertx = vertx;
        this.batchSize = batchSize;
        this.transactions = transactions;
        Gauge.builder("countersign.proposals.waiting", this, StagingBatches::waitingCount)
                .description("Proposals waiting for a staging transaction in this instance")
                .register(registry);
    }

    /**
     * Stages {@code proposal} in the next free transaction, with other waiting proposals of its tenant; answers once
     * that transaction committed: true if an outbox event was written (the relay should run). Each subscription stages
     * it again (a retry does), which the processed-event record makes harmless.
     */
    public Uni<Boolean> stage(ActionProposed proposal) {
        return Uni.createFrom().emitter(emitter -> {
            Waiting entry = new Waiting(new Arrival(proposal, io.opentelemetry.context.Context.current(),
                    telemetry.currentTraceParent()), emitter, Vertx.currentContext());
            synchronized (this) {
                waiting.add(entry);
            }
            startBatches();
        });
    }

    private synchronized int waitingCount() {
        return waiting.size();
    }

    private void startBatches() {
        while (true) {
            List<Waiting> batch;
            synchronized (this) {
                if (running >= transactions || waiting.isEmpty()) {
                    return;
                }
                batch = takeOneTenants();
                running++;
            }
            // A context of its own: the transaction's callbacks come back to it, not to whichever proposal's record
            // started it, and each proposal's trace is made current there while its part runs.
            Context context = VertxContext.createNewDuplicatedContext(vertx.getOrCreateContext());
            context.runOnContext(ignored -> run(batch).subscribe().with(done -> ended(), failure -> {
                LOG.errorf("A staging batch ended with a failure it did not answer: %s", failure);
                ended();
            }));
        }
    }

    private void ended() {
        synchronized (this) {
            running--;
        }
        startBatches();
    }

    /** The oldest waiting proposal and the next waiting ones of its tenant, up to the batch size, in arrival order. */
    private List<Waiting> takeOneTenants() {
        Waiting first = waiting.poll();
        List<Waiting> batch = new ArrayList<>(batchSize);
        batch.add(first);
        for (Iterator<Waiting> next = waiting.iterator(); next.hasNext() && batch.size() < batchSize;) {
            Waiting candidate = next.next();
            if (Objects.equals(candidate.tenantId(), first.tenantId())) {
                batch.add(candidate);
                next.remove();
            }
        }
        return batch;
    }

    private Uni<Void> run(List<Waiting> batch) {
        // Deferred: whatever goes wrong, even thrown while starting, ends here as a failure, and the batch's slot is
        // given back.
        return Uni.createFrom().deferred(() -> staging.stage(batch.stream().map(Waiting::arrival).toList()))
                .invoke(answers -> {
                    for (int i = 0; i < batch.size(); i++) {
                        batch.get(i).answer(answers.get(i), null);
                    }
                })
                .replaceWithVoid()
                .onFailure().recoverWithUni(failure -> {
                    if (batch.size() == 1) {
                        batch.get(0).answer(null, failure);
                        return Uni.createFrom().voidItem();
                    }
                    LOG.infof("Staging %d proposals of tenant %s together failed (%s); staging each alone",
                            batch.size(), batch.get(0).tenantId(), failure.getMessage());
                    return eachAlone(batch);
                });
    }

    private Uni<Void> eachAlone(List<Waiting> batch) {
        return Multi.createFrom().iterable(batch)
                .onItem().transformToUniAndConcatenate(one -> Uni.createFrom()
                        .deferred(() -> staging.stage(List.of(one.arrival())))
                        .onItemOrFailure().invoke((answers, failure) -> one.answer(
                                failure == null ? answers.get(0) : null, failure))
                        .onFailure().recoverWithNull())
                .collect().last().replaceWithVoid();
    }

    private record Waiting(Arrival arrival, UniEmitter<? super Boolean> emitter, Context caller) {

        String tenantId() {
            return arrival.proposal().tenantId();
        }

        void answer(Boolean outboxWritten, Throwable failure) {
            Runnable deliver = () -> {
                if (failure == null) {
                    emitter.complete(outboxWritten);
                } else {
                    emitter.fail(failure);
                }
            };
            if (caller == null) {
                deliver.run();
            } else {
                caller.runOnContext(ignored -> deliver.run());
            }
        }
    }
}
