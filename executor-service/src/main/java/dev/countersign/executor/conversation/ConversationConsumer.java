package dev.countersign.executor.conversation;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

import dev.countersign.contracts.events.PlanEvent;
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.json.Json;
import dev.countersign.contracts.json.MalformedEventException;
import dev.countersign.executor.gate.TransientFailures;
import io.smallrye.mutiny.Uni;

/**
 * Consumes {@code countersign.conversation.events} into the conversation ledger. An unreadable or invalid record goes
 * to {@code countersign.conversation.events.dlq} at once (it can never succeed); a database failure is retried and
 * holds the partition, so a conversation's turns are appended in the order they were published. The offset is committed
 * only after the row is.
 */
@ApplicationScoped
public class ConversationConsumer {

    private static final Logger LOG = Logger.getLogger(ConversationConsumer.class);

    private final ConversationLedger ledger;

    public ConversationConsumer(ConversationLedger ledger) {
        this.ledger = ledger;
    }

    @Incoming("conversation")
    public Uni<Void> consume(String payload) {
        if (ConversationLedger.isPlanEvent(payload)) {
            return consumePlan(payload);
        }
        TurnRecorded turn;
        try {
            turn = Json.read(payload, TurnRecorded.class);
        } catch (MalformedEventException e) {
            LOG.warnf("Unreadable conversation event sent to the dead-letter topic: %s", e.getMessage());
            return Uni.createFrom().failure(e);
        }
        String problem = ConversationLedger.envelopeProblem(turn);
        if (problem != null) {
            LOG.warnf("Invalid conversation event %s sent to the dead-letter topic: %s", turn.eventId(), problem);
            return Uni.createFrom().failure(new MalformedEventException(problem, null));
        }
        return TransientFailures.retryWhileTransient(ledger.append(turn, payload), LOG,
                "Appending turn " + turn.turnId()).replaceWithVoid();
    }

    /** A plan turn's deliverable ({@code PlanStatementDrafted}, {@code PlanRefused}, {@code PlanFellShort}). */
    private Uni<Void> consumePlan(String payload) {
        PlanEvent plan;
        try {
            plan = Json.read(payload, PlanEvent.class);
        } catch (MalformedEventException e) {
            LOG.warnf("Unreadable plan event sent to the dead-letter topic: %s", e.getMessage());
            return Uni.createFrom().failure(e);
        }
        String problem = ConversationLedger.envelopeProblem(plan);
        if (problem != null) {
            LOG.warnf("Invalid plan event %s sent to the dead-letter topic: %s", plan.eventId(), problem);
            return Uni.createFrom().failure(new MalformedEventException(problem, null));
        }
        return TransientFailures.retryWhileTransient(ledger.append(plan, payload), LOG,
                "Appending the plan deliverable of turn " + plan.turnId()).replaceWithVoid();
    }
}
