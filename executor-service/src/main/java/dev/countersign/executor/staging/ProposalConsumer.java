package dev.countersign.executor.staging;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

import dev.countersign.contracts.events.ActionProposed;
import dev.countersign.contracts.json.MalformedEventException;
import dev.countersign.executor.db.TransientFailures;
import dev.countersign.executor.evidence.Evidence;
import dev.countersign.executor.evidence.EvidenceGate;
import dev.countersign.executor.evidence.EvidenceRejectedException;
import dev.countersign.executor.evidence.RecordTime;
import dev.countersign.executor.messaging.GroupCommit;
import dev.countersign.executor.messaging.KeyedLanes;
import dev.countersign.executor.messaging.ReadPayload;
import dev.countersign.executor.outbox.OutboxRelay;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordMetadata;

/**
 * Consumes {@code countersign.actions.proposed}. An unreadable record fails at once and goes to the dead-letter topic
 * (it can never succeed); a database failure is retried with back-off and holds its lane (and, once every lane holds
 * one, the channel), so nothing is skipped, and no action's records reordered, while PostgreSQL is away. An offset is
 * committed only after the staging transactions of it and every record before it ended.
 * <p>
 * Before anything else, the record's evidence ({@link EvidenceGate}) must show that the proposal's user of the
 * proposal's tenant signed in recently (or that a service principal proposes as itself): without it the proposal goes
 * to the dead-letter topic with the reason and without the token, and nothing is staged or published for the tenant it
 * names (an unverified tenant gets no outcome events).
 * <p>
 * Verified proposals are staged in batches by tenant ({@link GroupCommit}, {@link StagingService#stage}): those that
 * arrive while every staging transaction is busy are staged together by the next free one. Metrics:
 * {@code countersign_staging_waiting} (proposals waiting for a transaction) and
 * {@code countersign_staging_restaged_alone_total} (proposals whose batch failed, staged again alone).
 */
@ApplicationScoped
public class ProposalConsumer {

    private static final Logger LOG = Logger.getLogger(ProposalConsumer.class);

    private static final String CONSUMER = "proposals";

    private final StagingService staging;
    private final OutboxRelay relay;
    private final EvidenceGate evidence;
    private final KeyedLanes lanes;
    private final GroupCommit<StagingRequest, Boolean> batches;
    /** Proposals of a failed batch, staged again one per transaction, at most as many at once as batches. */
    private final GroupCommit<StagingRequest, Boolean> alone;
    private final Counter restagedAlone;

    public ProposalConsumer(StagingService staging, OutboxRelay relay, EvidenceGate evidence,
            @ConfigProperty(name = "countersign.proposals.lanes") int lanes,
            @ConfigProperty(name = "countersign.proposals.transactions") int transactions,
            @ConfigProperty(name = "countersign.proposals.batch-size") int batchSize, MeterRegistry registry) {
        this.staging = staging;
        this.relay = relay;
        this.evidence = evidence;
        this.lanes = KeyedLanes.withLanes(lanes);
        this.batches = new GroupCommit<>(transactions, batchSize, request -> request.proposal().tenantId(),
                staging::stage);
        this.alone = new GroupCommit<>(transactions, 1, request -> request.proposal().tenantId(), staging::stage);
        Gauge.builder("countersign.staging.waiting", batches, GroupCommit::waitingItems)
                .description("Proposals waiting for a staging transaction (PROPOSAL_TRANSACTIONS all busy)")
                .register(registry);
        this.restagedAlone = Counter.builder("countersign.staging.restaged_alone")
                .description("Proposals whose staging batch failed as a whole, then staged alone")
                .register(registry);
    }

    /**
     * Every refusal is a failed Uni, which {@link #refuse} dead-letters with its message as the reason; anything thrown
     * while reading the record ({@link ReadPayload}) or staging it ({@code deferred}) is turned into one too, so it
     * takes the same route and is never left to the framework's handling of a method that throws.
     * <p>
     * Proposals of different actions are staged side by side ({@link KeyedLanes}, {@code PROPOSAL_LANES}), those of one
     * action (the payload's action id, whatever the record's key) in topic order; each record is acknowledged when its
     * staging committed, or refused (to the dead-letter topic) when it never can, in any order: the throttled commit
     * strategy commits only offsets below which every record ended.
     */
    @Incoming("proposals")
    public Uni<Void> consume(Message<String> message) {
        IncomingKafkaRecordMetadata<?, ?> metadata = message.getMetadata(IncomingKafkaRecordMetadata.class)
                .orElseThrow();
        String token = EvidenceGate.take(metadata);
        RecordTime time = RecordTime.of(metadata);
        ReadPayload<ActionProposed> read = ReadPayload.of(message.getPayload(), ActionProposed.class);
        String lane = read.laneKey(ActionProposed::actionId, String.valueOf(metadata.getKey()));
        return lanes.submit(lane, () -> Uni.createFrom().deferred(() -> stage(read, token, time))
                .onItemOrFailure().transformToUni((ignored, failure) -> failure == null
                        ? Uni.createFrom().completionStage(message::ack)
                        : refuse(message, failure)));
    }

    /**
     * Sends the record to the dead-letter topic (the channel's failure strategy) with the failure as its reason. If
     * that fails (the topic missing, the broker refusing), it is tried again until it works: the record's lane, and in
     * the end the channel, waits rather than acknowledging a record that was neither staged nor parked.
     */
    private static Uni<Void> refuse(Message<String> message, Throwable failure) {
        return Uni.createFrom().completionStage(() -> message.nack(failure))
                .onFailure().invoke(parking -> LOG.errorf("Could not send a refused proposal to the dead-letter"
                        + " topic, retrying: %s", parking.getMessage()))
                .onFailure().retry().withBackOff(Duration.ofSeconds(1), Duration.ofSeconds(30)).indefinitely();
    }

    private Uni<Void> stage(ReadPayload<ActionProposed> read, String token, RecordTime time) {
        if (read.failure() instanceof MalformedEventException e) {
            LOG.warnf("Unreadable proposal sent to the dead-letter topic: %s", e.getMessage());
            return Uni.createFrom().failure(e);
        }
        if (read.failure() != null) {
            return Uni.createFrom().failure(read.failure());
        }
        ActionProposed proposal = read.event();
        return evidence.check(CONSUMER, token, proposal.tenantId(), proposal.userId(), time)
                .flatMap(checked -> {
                    if (checked instanceof Evidence.Rejected rejected) {
                        LOG.warnf("Proposal %s (action %s) sent to the dead-letter topic: no valid evidence (%s)",
                                proposal.eventId(), proposal.actionId(), rejected.reason());
                        return Uni.createFrom().failure(
                                new EvidenceRejectedException(rejected.reason(), proposal.eventId()));
                    }
                    return stageVerified(proposal, ((Evidence.Verified) checked).mcpClient());
                });
    }

    /**
     * Staged with the other proposals of its tenant waiting at the time ({@link GroupCommit}); if that batch's
     * transaction failed, staged again alone, so one proposal PostgreSQL refuses never fails its neighbours: retried
     * while the failure is transient, else recorded as rejected. Staged alone through a limiter of its own
     * ({@code alone}, as many transactions as the batches'), so a failed batch does not open one transaction per member
     * at once: at most twice PROPOSAL_TRANSACTIONS staging transactions in all.
     */
    private Uni<Void> stageVerified(ActionProposed proposal, String mcpClient) {
        StagingRequest request = staging.request(proposal, mcpClient);
        return batches.submit(request)
                .onFailure().recoverWithUni(failure -> {
                    LOG.infof("The staging batch of %s failed (%s); staging it alone", proposal.actionId(),
                            failure.getMessage());
                    restagedAlone.increment();
                    return stageAlone(request);
                })
                .invoke(wroteOutbox -> {
                    if (wroteOutbox) {
                        relay.wakeUp();
                    }
                })
                .replaceWithVoid();
    }

    private Uni<Boolean> stageAlone(StagingRequest request) {
        ActionProposed proposal = request.proposal();
        return TransientFailures.retryWhileTransient(alone.submit(request), LOG, "Staging " + proposal.actionId())
                .onFailure().recoverWithUni(failure -> {
                    LOG.errorf("Staging %s failed for good (%s); recording it as rejected", proposal.actionId(),
                            failure.getMessage());
                    // If recording the rejection fails too, the record goes to the dead-letter topic.
                    return staging.rejectUnstorable(proposal);
                });
    }
}
