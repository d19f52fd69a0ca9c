package dev.countersign.executor.conversation;

import java.util.UUID;
import java.util.function.Function;

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
            // A plan turn's deliverable (PlanStatementDrafted, PlanRefused, PlanFellShort).
            return consume(payload, PlanEvent.class, "plan event", ConversationLedger::envelopeProblem,
                    PlanEvent::eventId, plan -> ledger.append(plan, payload),
                    plan -> "Appending the plan deliverable of turn " + plan.turnId());
        }
        return consume(payload, TurnRecorded.class, "conversation event", ConversationLedger::envelopeProblem,
                TurnRecorded::eventId, turn -> ledger.append(turn, payload),
                turn -> "Appending turn " + turn.turnId());
    }

    /**
     * The one way an event of the ledger is taken in: unreadable or invalid, it fails to the dead-letter topic;
     * otherwise it is appended, retried while the database failure is transient.
     */
    private <E> Uni<Void> consume(String payload, Class<E> type, String what, Function<E, String> envelopeProblem,
            Function<E, UUID> eventId, Function<E, Uni<?>> append, Function<E, String> appending) {
        E event;
        try {
            event = Json.read(payload, type);
        } catch (MalformedEventException e) {
            LOG.warnf("Unreadable %s sent to the dead-letter topic: %s", what, e.getMessage());
            return Uni.createFrom().failure(e);
        }
        String problem = envelopeProblem.apply(event);
        if (problem != null) {
            LOG.warnf("Invalid %s %s sent to the dead-letter topic: %s", what, eventId.apply(event), problem);
            return Uni.createFrom().failure(new MalformedEventException(problem, null));
        }
        return TransientFailures.retryWhileTransient(append.apply(event), LOG, appending.apply(event))
                .replaceWithVoid();
    }
}
