package dev.countersign.agent.outcomes;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.contracts.json.Json;
import dev.countersign.contracts.json.MalformedEventException;

/**
 * Reads {@code countersign.actions.outcomes} so the next turn can tell the user what happened to a proposal. The agent
 * only reads outcomes for context; an unreadable one (or a type this version does not know) is logged and skipped.
 */
@ApplicationScoped
public class OutcomeConsumer {

    private static final Logger LOG = Logger.getLogger(OutcomeConsumer.class);

    private final RecentOutcomes recent;

    public OutcomeConsumer(RecentOutcomes recent) {
        this.recent = recent;
    }

    @Incoming("outcomes")
    public void consume(String payload) {
        try {
            recent.record(Json.read(payload, ActionOutcome.class));
        } catch (MalformedEventException e) {
            LOG.warnf("Skipped an unreadable outcome: %s", e.getMessage());
        }
    }
}
