package dev.countersign.executor.gate;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

import dev.countersign.contracts.events.ActionDecided;
import dev.countersign.contracts.json.Json;
import dev.countersign.contracts.json.MalformedEventException;
import io.smallrye.mutiny.Uni;

/**
 * Consumes {@code countersign.actions.decisions}: the same confirm and cancel as over HTTP, relayed by integrations.
 * Idempotent by event id (recorded in the decision's transaction). An unreadable event, or one that fails the same way
 * every time, goes to the dead-letter topic with the reason in its headers; transient database failures are retried for
 * as long as they last. A decision with a wrong token or for an unknown action changes nothing and is only logged
 * (without the token): answering it on a topic would be an oracle for ids and tokens.
 */
@ApplicationScoped
public class DecisionConsumer {

    static final String CONSUMER = "executor.decisions";
    private static final Logger LOG = Logger.getLogger(DecisionConsumer.class);

    private final DecisionService decisions;

    public DecisionConsumer(DecisionService decisions) {
        this.decisions = decisions;
    }

    @Incoming("decisions")
    public Uni<Void> consume(String payload) {
        ActionDecided decided;
        try {
            decided = Json.read(payload, ActionDecided.class);
        } catch (MalformedEventException e) {
            LOG.warnf("Unreadable decision sent to the dead-letter topic: %s", e.getMessage());
            return Uni.createFrom().failure(e);
        }
        DecisionRequest request = new DecisionRequest(decided.actionId(), decided.tenantId(), decided.userId(),
                decided.token(), decided.channel(), decided.eventId(), decided.turnId());
        Uni<DecisionOutcome> outcome = decided.decision() == ActionDecided.Decision.CONFIRM
                ? decisions.confirm(request)
                : decisions.cancel(request);
        return outcome
                .onFailure(TransientFailures::isTransient).invoke(failure -> LOG.warnf(
                        "Decision %s failed, retrying: %s", decided.eventId(), failure.getMessage()))
                .onFailure(TransientFailures::isTransient).retry()
                .withBackOff(Duration.ofMillis(100), Duration.ofSeconds(5)).indefinitely()
                .invoke(result -> LOG.infof("Decision %s (%s via %s) on action %s: %s", decided.eventId(),
                        decided.decision().wireName(), decided.channel(), decided.actionId(),
                        result.getClass().getSimpleName()))
                .replaceWithVoid();
    }
}
