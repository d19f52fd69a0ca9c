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
import dev.countersign.contracts.json.ConfirmTokens;
import dev.countersign.contracts.json.Json;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;

/**
 * The agent's only way to ask for a write: publish {@code ActionProposed} and wait for the broker's acknowledgement.
 * The confirm token is 128 bits from a CSPRNG; the event carries its SHA-256 only, the card carries the raw token. The
 * record carries the person's own bearer token as evidence ({@code countersign-evidence} header), without which the
 * executor stages nothing.
 * <p>
 * Limit: the agent has no outbox (it writes no database), so if the broker does not acknowledge in time the tool
 * reports failure to the model, and the proposal may or may not have been published. If it was, it is staged without a
 * token anyone holds and simply expires.
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
        String token = ConfirmTokens.newToken();
        Instant now = Instant.now();
        String kind = params.definition().kind();
        String paramsHash = params.hash();
        ActionProposed event = new ActionProposed(UUID.randomUUID(), ActionProposed.SCHEMA_VERSION, now, actionId,
                turn.tenantId(), turn.userId(), turn.conversation().conversationId(), turn.turnId(), kind,
                params.normalised(),
                paramsHash, ConfirmTokens.hash(token), null, turn.contextClean());
        var metadata = OutgoingKafkaRecordMetadata.<String>builder().withKey(actionId.toString())
                .withHeaders(turn.evidence().headers()).build();
        emitter.sendMessage(Message.of(Json.write(event)).addMetadata(metadata)).await().atMost(timeout);
        return new ProposalCard(actionId, kind, params.summary(), params.normalised(), paramsHash, token, now,
                "/api/actions/" + actionId + "/confirm");
    }
}
