package dev.countersign.agent.tools.propose;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;

import dev.countersign.agent.turn.TurnScope;
import dev.countersign.contracts.api.ProposalCard;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.events.ActionProposed;
import dev.countersign.contracts.json.Json;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;

/**
 * The agent's only way to ask for a write: publish {@code ActionProposed} and wait for the broker's acknowledgement. It
 * carries no confirm token: the executor mints each person's action token itself, and the person decides on the
 * executor's own page, so nothing the agent holds can decide (docs/security/decision-origin.md). The record carries the
 * person's own bearer token as evidence ({@code countersign-evidence} header), without which the executor stages
 * nothing.
 * <p>
 * Limit: the agent has no outbox (it writes no database), so if the broker does not acknowledge in time the tool
 * reports failure to the model, and the proposal may or may not have been published. If it was, it is staged and waits
 * on the executor's page like any other proposal, or expires.
 */
@ApplicationScoped
public class ProposalPublisher {

    private final MutinyEmitter<String> emitter;
    private final Duration timeout;

    public ProposalPublisher(@Channel("proposals") MutinyEmitter<String> emitter, ProposalsConfig config) {
        this.emitter = emitter;
        this.timeout = config.publishTimeout();
    }

    public ProposalCard publish(TurnScope turn, ValidatedParams params) {
        UUID actionId = UUID.randomUUID();
        Instant now = Instant.now();
        String kind = params.definition().kind();
        String paramsHash = params.hash();
        ActionProposed event = new ActionProposed(UUID.randomUUID(), ActionProposed.SCHEMA_VERSION, now, actionId,
                turn.tenantId(), turn.userId(), turn.conversation().conversationId(), turn.turnId(), kind,
                params.normalised(),
                paramsHash, null, null, turn.contextClean());
        var metadata = OutgoingKafkaRecordMetadata.<String>builder().withKey(actionId.toString())
                .withHeaders(turn.evidence().headers()).build();
        emitter.sendMessage(Message.of(Json.write(event)).addMetadata(metadata)).await().atMost(timeout);
        return new ProposalCard(actionId, kind, params.summary(), params.normalised(), paramsHash, now);
    }
}
