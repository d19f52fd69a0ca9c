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
import dev.countersign.executor.db.TransientFailures;
import dev.countersign.executor.evidence.Evidence;
import dev.countersign.executor.evidence.EvidenceGate;
import dev.countersign.executor.evidence.EvidenceRejectedException;
import dev.countersign.executor.evidence.RecordTime;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordMetadata;

/**
 * Consumes {@code countersign.conversation.events} into the conversation ledger. An unreadable or invalid record goes
 * to {@code countersign.conversation.events.dlq} at once (it can never succeed); a database failure is retried and
 * holds the partition, so a conversation's turns are appended in the order they were published. The offset is committed
 * only after the row is.
 * <p>
 * An event is appended only with evidence ({@link EvidenceGate}) that its user of its tenant signed in recently: a
 * compromised agent cannot write turns into the conversation of someone who is not signed in to it. A service
 * principal's evidence is refused here: a service has no conversation.
 */
@ApplicationScoped
public class ConversationConsumer {

    private static final Logger LOG = Logger.getLogger(ConversationConsumer.class);

    private static final String CONSUMER = "conversation";

    private final ConversationLedger ledger;
    /** The dead-letter reason of a conversation event whose evidence is an MCP call's. */
    static final String MCP_HAS_NO_CONVERSATION = "mcp_has_no_conversation";

    private final EvidenceGate evidence;

    public ConversationConsumer(ConversationLedger ledger, EvidenceGate evidence) {
        this.ledger = ledger;
        this.evidence = evidence;
    }

    @Incoming("conversation")
    public Uni<Void> consume(String payload, IncomingKafkaRecordMetadata<String, String> metadata) {
        String token = EvidenceGate.take(metadata);
        RecordTime time = RecordTime.of(metadata);
        // An exception thrown while reading the record becomes a failed Uni: dead-lettered like every refusal.
        return Uni.createFrom().deferred(() -> append(payload, token, time));
    }

    private Uni<Void> append(String payload, String token, RecordTime time) {
        if (ConversationLedger.isPlanEvent(payload)) {
            // A plan turn's deliverable (PlanStatementDrafted, PlanRefused, PlanFellShort).
            return consume(payload, PlanEvent.class, "plan event", ConversationLedger::envelopeProblem,
                    PlanEvent::eventId, plan -> verified(plan.eventId(), plan.tenantId(), plan.userId(), token, time),
                    plan -> ledger.append(plan, payload),
                    plan -> "Appending the plan deliverable of turn " + plan.turnId());
        }
        return consume(payload, TurnRecorded.class, "conversation event", ConversationLedger::envelopeProblem,
                TurnRecorded::eventId, turn -> verified(turn.eventId(), turn.tenantId(), turn.userId(), token, time),
                turn -> ledger.append(turn, payload),
                turn -> "Appending turn " + turn.turnId());
    }

    /** Null if the evidence shows that this person signed in recently; otherwise the rejection to fail with. */
    private Uni<EvidenceRejectedException> verified(java.util.UUID eventId, String tenantId, String userId,
            String token, RecordTime time) {
        return evidence.check(CONSUMER, token, tenantId, userId, time).map(checked -> {
            if (checked instanceof Evidence.Rejected rejected) {
                return new EvidenceRejectedException(rejected.reason(), eventId);
            }
            if (checked instanceof Evidence.Verified verified && verified.service()) {
                return new EvidenceRejectedException("service_has_no_conversation", eventId);
            }
            // An MCP call writes no turn: its evidence appending one would be a turn nobody had, replayed as the
            // person's (and as clean, if the agent marked it so) in their chat.
            if (checked instanceof Evidence.Verified verified && verified.throughMcp()) {
                return new EvidenceRejectedException(MCP_HAS_NO_CONVERSATION, eventId);
            }
            return null;
        });
    }

    /**
     * The one way an event of the ledger is taken in: unreadable or invalid, it fails to the dead-letter topic;
     * otherwise it is appended, retried while the database failure is transient.
     */
    private <E> Uni<Void> consume(String payload, Class<E> type, String what, Function<E, String> envelopeProblem,
            Function<E, UUID> eventId, Function<E, Uni<EvidenceRejectedException>> unverified,
            Function<E, Uni<?>> append,
            Function<E, String> appending) {
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
        return unverified.apply(event).flatMap(rejected -> {
            if (rejected != null) {
                LOG.warnf("%s %s sent to the dead-letter topic: %s", what, eventId.apply(event),
                        rejected.getMessage());
                return Uni.createFrom().failure(rejected);
            }
            return TransientFailures.retryWhileTransient(append.apply(event), LOG, appending.apply(event))
                    .replaceWithVoid();
        });
    }
}
