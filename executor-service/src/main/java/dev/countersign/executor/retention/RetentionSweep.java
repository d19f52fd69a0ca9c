package dev.countersign.executor.retention;

import java.time.Instant;
import java.time.ZoneOffset;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduled.ConcurrentExecution;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Keeps the two event-carrying tables from growing without end (quarkus-scheduler): published outbox rows older than
 * {@code countersign.retention.outbox} and consumers' dedup records older than
 * {@code countersign.retention.processed-events} are deleted, a batch per statement, through the database functions
 * made for it (R__retention.sql). Every instance may sweep; SKIP LOCKED keeps two sweeps apart.
 * <p>
 * Limits: a record of a consumed topic delivered again after its dedup record went is judged again. A repeated decision
 * finds its action no longer proposed and runs nothing; a repeated proposal of a staged action finds its id taken; but
 * a repeated proposal that was rejected (no action stored) is judged anew and, if its evidence were still fresh enough,
 * could be staged. So the retention must exceed the consumed topics' own (see
 * {@link RetentionConfig#processedEvents()}; the deployed topics keep records a day at most). The business history
 * (actions, their history, the ledger, the conversation ledger) is never pruned here.
 */
@ApplicationScoped
public class RetentionSweep {

    private static final Logger LOG = Logger.getLogger(RetentionSweep.class);

    private final Pool pool;
    private final RetentionConfig config;

    public RetentionSweep(Pool pool, RetentionConfig config) {
        this.pool = pool;
        this.config = config;
    }

    /** Every {@code countersign.retention.every}; a sweep still running when the next is due is not doubled. */
    @Scheduled(identity = "retention-sweep", every = "${countersign.retention.every}", skipExecutionIf = Scheduled.ApplicationNotRunning.class, concurrentExecution = ConcurrentExecution.SKIP)
    Uni<Void> sweepOnSchedule() {
        return sweep()
                .onFailure().invoke(failure -> LOG.warnf("Retention sweep failed, will retry on the next tick: %s",
                        failure.getMessage()))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }

    /** One sweep of the three tables (the third: used approver tokens an hour past expiry); what it deleted. */
    public Uni<Swept> sweep() {
        Instant now = Instant.now();
        return prune("outbox_prune", now.minus(config.outbox()), 0)
                .flatMap(outbox -> prune("processed_events_prune", now.minus(config.processedEvents()), 0)
                        .flatMap(processed -> prune("approver_token_uses_prune", now, 0)
                                .map(tokens -> new Swept(outbox, processed, tokens))))
                .invoke(swept -> {
                    if (swept.outboxRows() + swept.processedEvents() + swept.approverTokenUses() > 0) {
                        LOG.infof("Retention: deleted %d published outbox rows, %d processed-event records and %d"
                                + " records of expired approver tokens", swept.outboxRows(), swept.processedEvents(),
                                swept.approverTokenUses());
                    }
                });
    }

    /** Calls {@code function} until a batch comes back short; the rows deleted in all. */
    private Uni<Integer> prune(String function, Instant before, int deletedSoFar) {
        return pool.preparedQuery("SELECT " + function + "($1, $2)")
                .execute(Tuple.of(before.atOffset(ZoneOffset.UTC), config.batch()))
                .map(rows -> rows.iterator().next().getInteger(0))
                .flatMap(deleted -> deleted < config.batch()
                        ? Uni.createFrom().item(deletedSoFar + deleted)
                        : prune(function, before, deletedSoFar + deleted));
    }

    /** Rows deleted by one sweep. */
    public record Swept(int outboxRows, int processedEvents, int approverTokenUses) {
    }
}
