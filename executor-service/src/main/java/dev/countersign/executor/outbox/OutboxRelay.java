package dev.countersign.executor.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

import io.quarkus.scheduler.Scheduled;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Publishes outbox rows to Kafka and stamps them published. Runs after every commit that wrote the outbox
 * ({@link #wakeUp()}) and on a schedule ({@link #poll()}), so rows left by a crashed instance or a broker outage go out
 * later.
 * <p>
 * Guarantees and limits: at least once (a crash between the broker's ack and the stamp republishes the batch; every
 * consumer deduplicates on eventId). The batch's rows stay locked, in an open transaction, until the broker has
 * acknowledged every record (bounded by the producer's delivery timeout); other instances skip them meanwhile. Rows are
 * locked with SKIP LOCKED, so two executor instances never publish the same row at the same time, but then events of
 * one action may leave two instances out of order; consumers must not depend on outcome order across instances.
 */
@ApplicationScoped
public class OutboxRelay {

    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);

    private final Pool pool;
    private final MutinyEmitter<String> emitter;
    private final OutboxConfig config;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean again = new AtomicBoolean();

    public OutboxRelay(Pool pool, @Channel("outbox") MutinyEmitter<String> emitter, OutboxConfig config) {
        this.pool = pool;
        this.emitter = emitter;
        this.config = config;
    }

    /**
     * The timer half: every {@code countersign.outbox.poll-interval}, for rows no commit on this instance announced.
     */
    @Scheduled(identity = "outbox-relay-poll", every = "${countersign.outbox.poll-interval}", skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    @NonBlocking
    void poll() {
        wakeUp();
    }

    /** Asks for a relay run soon; runs never overlap within an instance, and a request during a run causes another. */
    public void wakeUp() {
        again.set(true);
        if (running.compareAndSet(false, true)) {
            Infrastructure.getDefaultExecutor().execute(this::drain);
        }
    }

    private void drain() {
        again.set(false);
        publishBatch().subscribe().with(published -> {
            running.set(false);
            if (published == config.batchSize() || again.get()) {
                wakeUp();
            }
        }, failure -> {
            running.set(false);
            LOG.warnf("Outbox relay run failed, will retry on the next tick: %s", failure.getMessage());
        });
    }

    /** Publishes one batch; the number of rows published. */
    Uni<Integer> publishBatch() {
        // Across tenants, through the two database functions made for it (R__outbox_relay.sql): the application role
        // cannot read the outbox otherwise.
        return pool.withTransaction(sql -> sql.preparedQuery(
                "SELECT id, topic, message_key, payload FROM outbox_claim($1)")
                .execute(Tuple.of(config.batchSize()))
                .flatMap(rows -> {
                    if (rows.size() == 0) {
                        return Uni.createFrom().item(0);
                    }
                    List<Long> ids = new ArrayList<>();
                    List<Uni<Void>> sends = new ArrayList<>();
                    for (Row row : rows) {
                        ids.add(row.getLong("id"));
                        sends.add(send(row));
                    }
                    return Uni.join().all(sends).andFailFast()
                            .flatMap(acked -> sql.preparedQuery(
                                    "SELECT outbox_mark_published($1)")
                                    .execute(Tuple.of(ids.toArray(new Long[0]))))
                            .map(updated -> ids.size());
                }));
    }

    private Uni<Void> send(Row row) {
        var metadata = OutgoingKafkaRecordMetadata.<String>builder()
                .withTopic(row.getString("topic"))
                .withKey(row.getString("message_key"))
                .build();
        return emitter.sendMessage(Message.of(row.getString("payload")).addMetadata(metadata));
    }
}
