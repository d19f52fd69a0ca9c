package dev.countersign.agent.conversation;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.evidence.RequestEvidence;
import dev.countersign.contracts.events.PlanEvent;
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.json.Json;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;

/**
 * Publishes a finished turn to {@code countersign.conversation.events} and waits until executor-service has appended it
 * to the ledger (with the person's token as evidence, without which the executor appends nothing), so the next request
 * of the conversation sees it on whichever replica it lands (read-your-writes).
 * <p>
 * Limits: the wait is bounded ({@code countersign.conversations.ledger-wait}); past it the reply says the turn is not
 * recorded yet, and a next turn sent before the executor catches up does not see it. agent-service writes no database,
 * so it has no outbox: a turn whose publication fails is lost from the history (its proposals are not: they were
 * published, acknowledged, and staged on their own).
 */
@ApplicationScoped
public class TurnRecorder {

    private static final Logger LOG = Logger.getLogger(TurnRecorder.class);

    private final MutinyEmitter<String> emitter;
    private final ConversationLedger ledger;
    private final ConversationsConfig config;

    public TurnRecorder(@Channel("conversation") MutinyEmitter<String> emitter, ConversationLedger ledger,
            ConversationsConfig config) {
        this.emitter = emitter;
        this.ledger = ledger;
        this.config = config;
    }

    /** True once the turn is in the ledger; false if publishing failed or the executor did not append it in time. */
    public boolean record(TurnRecorded turn, RequestEvidence evidence) {
        return publish(turn.conversationId(), Json.write(turn), turn, evidence)
                && awaitAppended(turn, turn.tenantId(), turn.eventId());
    }

    /**
     * A plan turn: its deliverable first, then the turn, on the same key (so the executor appends them in that order);
     * true once both are in the ledger.
     */
    public boolean record(PlanEvent deliverable, TurnRecorded turn, RequestEvidence evidence) {
        return publish(turn.conversationId(), Json.write(deliverable), turn, evidence) && record(turn, evidence)
                && awaitAppended(turn, turn.tenantId(), deliverable.eventId());
    }

    private boolean publish(String key, String payload, TurnRecorded turn, RequestEvidence evidence) {
        try {
            var metadata = OutgoingKafkaRecordMetadata.<String>builder().withKey(key).withHeaders(evidence.headers())
                    .build();
            emitter.sendMessage(Message.of(payload).addMetadata(metadata)).await().atMost(config.publishTimeout());
            return true;
        } catch (RuntimeException e) {
            LOG.warnf("An event of turn %s of conversation %s was not published: %s", turn.turnId(),
                    turn.conversationId(), e.toString());
            return false;
        }
    }

    private boolean awaitAppended(TurnRecorded turn, String tenantId, java.util.UUID eventId) {
        Instant giveUp = Instant.now().plus(config.ledgerWait());
        long pauseMillis = 2;
        while (true) {
            if (ledger.contains(new Person(tenantId, turn.userId()), eventId)) {
                return true;
            }
            if (Instant.now().isAfter(giveUp)) {
                LOG.warnf("Event %s of turn %s of conversation %s is not in the ledger after %s", eventId,
                        turn.turnId(), turn.conversationId(), config.ledgerWait());
                return false;
            }
            try {
                Thread.sleep(pauseMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            pauseMillis = Math.min(pauseMillis * 2, 50);
        }
    }
}
