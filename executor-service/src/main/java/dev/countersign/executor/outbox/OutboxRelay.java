package dev.countersign.executor.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

import dev.countersign.contracts.Topics;
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
 * <p>
 * An outcome of a tenant listed in {@code countersign.outbox.tenant-outcome-topics} goes to its tenant's topic too, in
 * the same batch (both acknowledged before the row is stamped), so that tenant's integration reads its own outcomes
 * without being granted the shared topic.
 */
@ApplicationScoped
public class OutboxRelay {

    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);

    private final Pool pool;
    private final MutinyEmitter<String> emitter;
    private final OutboxConfig config;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean again = new AtomicBoolean();

    private final Set<String> tenantTopics;

    public OutboxRelay(Pool pool, @Channel("outbox") MutinyEmitter<String> emitter, OutboxConfig config) {
        this.pool = pool;
        this.emitter = emitter;
        this.config = config;
        this.tenantTopics = config.tenantOutcomeTopics().orElse(Set.of()).stream().filter(t -> !t.isBlank())
                .collect(java.util.stream.Collectors.toUnmodifiableSet());
        tenantTopics.forEach(Topics::tenantOutcomes); // refuses at start a tenant id no topic name can carry
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
                "SELECT id, tenant_id, topic, message_key, payload FROM outbox_claim($1)")
                .execute(Tuple.of(config.batchSize()))
                .flatMap(rows -> {
                    if (rows.size() == 0) {
                        return Uni.createFrom().item(0);
                    }
                    List<Long> ids = new ArrayList<>();
                    List<Uni<Void>> sends = new ArrayList<>();
                    for (Row row : rows) {
                        ids.add(row.getLong("id"));
                        sends.add(send(row, row.getString("topic")));
                        String tenant = row.getString("tenant_id");
                        if (Topics.ACTIONS_OUTCOMES.equals(row.getString("topic")) && tenantTopics.contains(tenant)) {
                            sends.add(send(row, Topics.tenantOutcomes(tenant)));
                        }
                    }
                    return Uni.join().all(sends).andFailFast()
                            .flatMap(acked -> sql.preparedQuery(
                                    "SELECT outbox_mark_published($1)")
                                    .execute(Tuple.of(ids.toArray(new Long[0]))))
                            .map(updated -> ids.size());
                }));
    }

    private Uni<Void> send(Row row, String topic) {
        var metadata = OutgoingKafkaRecordMetadata.<String>builder()
                .withTopic(topic)
                .withKey(row.getString("message_key"))
                .build();
        return emitter.sendMessage(Message.of(row.getString("payload")).addMetadata(metadata));
    }
}
