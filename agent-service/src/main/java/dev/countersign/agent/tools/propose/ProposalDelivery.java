package dev.countersign.agent.tools.propose;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RetriableException;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;

/**
 * Sends one proposal event and keeps re-sending the same event (same event id, same action id) until the broker
 * acknowledges it or the delivery deadline passes, whether or not the turn still waits. The Kafka producer retries
 * within each attempt too ({@code delivery.timeout.ms}); it is idempotent per producer session, and the executor
 * ignores a second copy of an event it has processed and of an action it has staged, so re-sending never stages twice.
 * <p>
 * A Kafka error that says retrying cannot help ends the delivery at once: the record was not appended, and the tool
 * says so. Created at startup, so a deadline no longer than the publish timeout stops the service before any turn.
 * <p>
 * Limits: the re-sending lives in this process only. If agent-service stops or is killed while a proposal is pending,
 * or the deadline passes, the proposal was published or it was not; nobody is told which except by the action appearing
 * (or not) on the executor's page. The evidence the event carries (the person's token) must still be valid when the
 * broker finally appends it, or the executor dead-letters it.
 */
@Startup
@ApplicationScoped
public class ProposalDelivery {

    private static final Logger LOG = Logger.getLogger(ProposalDelivery.class);
    private static final Duration FIRST_RESEND = Duration.ofMillis(200);
    private static final Duration LONGEST_PAUSE = Duration.ofSeconds(5);
    static final String METRIC = "countersign.proposals.delivery";

    private final MutinyEmitter<String> emitter;
    private final Duration deadline;
    private final Counter acknowledged;
    private final Counter abandoned;

    public ProposalDelivery(@Channel("proposals") MutinyEmitter<String> emitter, ProposalsConfig config,
            MeterRegistry registry) {
        if (config.deliveryDeadline().compareTo(config.publishTimeout()) <= 0) {
            throw new IllegalStateException(("countersign.proposals.delivery-deadline (%s) must be longer than"
                    + " countersign.proposals.publish-timeout (%s)").formatted(config.deliveryDeadline(),
                            config.publishTimeout()));
        }
        this.emitter = emitter;
        this.deadline = config.deliveryDeadline();
        this.acknowledged = Counter.builder(METRIC).tag("result", "acknowledged")
                .description("Proposal events the broker acknowledged, in time for the turn or later")
                .register(registry);
        this.abandoned = Counter.builder(METRIC).tag("result", "abandoned")
                .description("Proposal events not acknowledged before the delivery deadline").register(registry);
    }

    /**
     * False for a Kafka error that says trying again cannot help (not authorised for the topic, a record too large, a
     * serialisation error): such a record was not appended. Timeouts, an unreachable broker and a full send buffer may
     * pass on a later attempt.
     */
    static boolean mayPassOnRetry(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RetriableException) {
                return true;
            }
            if (cause instanceof KafkaException) {
                return false;
            }
        }
        return true;
    }

    /**
     * Starts delivering {@code payload}; the future completes when the broker acknowledges it and fails once the
     * deadline passes. A caller that stops waiting does not stop the delivery.
     */
    public CompletableFuture<Void> deliver(UUID actionId, String payload,
            OutgoingKafkaRecordMetadata<String> metadata) {
        long giveUpAt = Instant.now().plus(deadline).toEpochMilli();
        return Uni.createFrom().deferred(() -> emitter.sendMessage(Message.of(payload).addMetadata(metadata)))
                .onFailure().invoke(failure -> LOG.warnf("The broker did not take the proposal of action %s yet (%s);"
                        + " sending it again", actionId, failure.toString()))
                .onFailure(ProposalDelivery::mayPassOnRetry).retry().withBackOff(FIRST_RESEND, LONGEST_PAUSE)
                .expireAt(giveUpAt)
                .invoke(() -> acknowledged.increment())
                .onFailure().invoke(failure -> {
                    abandoned.increment();
                    if (mayPassOnRetry(failure)) {
                        LOG.errorf("The proposal of action %s was not acknowledged within %s; no longer re-sent. It"
                                + " was published (and is staged once) or it was not.", actionId, deadline);
                    } else {
                        LOG.errorf("The broker refused the proposal of action %s for good (%s); it was not staged",
                                actionId, failure.toString());
                    }
                })
                .subscribeAsCompletionStage();
    }
}
