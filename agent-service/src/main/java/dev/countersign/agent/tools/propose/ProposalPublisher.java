package dev.countersign.agent.tools.propose;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.turn.TurnScope;
import dev.countersign.contracts.api.ProposalCard;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.events.ActionProposed;
import dev.countersign.contracts.json.Json;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;

/**
 * The agent's only way to ask for a write: publish {@code ActionProposed} and wait a short while for the broker's
 * acknowledgement. It carries no confirm token: the executor mints each person's action token itself, and the person
 * decides on the executor's own page, so nothing the agent holds can decide (docs/security/decision-origin.md). The
 * record carries the person's own bearer token as evidence ({@code countersign-evidence} header), without which the
 * executor stages nothing.
 * <p>
 * Proposing is idempotent end to end: the action id derives from the turn and what is proposed ({@link ProposalIds}), a
 * repeat in the same turn is not sent again, and an unacknowledged event is re-sent unchanged until the delivery
 * deadline ({@link ProposalDelivery}). So the model is told "pending", never "failed" (unless the broker refused the
 * record for good), and its retry of the same proposal in the same turn cannot write twice. A proposal worded
 * otherwise, or made again in a later turn, is another action. The agent has no outbox (it writes no database): see
 * {@link ProposalDelivery} for what a crash loses.
 */
@ApplicationScoped
public class ProposalPublisher {

    /** What became of one propose call by the time the tool answers. */
    public enum Outcome {
        /** The broker acknowledged the event: the executor will stage it (or reject it, with a reason). */
        ACKNOWLEDGED,
        /** Not acknowledged yet; re-sending goes on in the background. */
        PENDING,
        /** The same proposal was already made in this turn: nothing was sent again. */
        REPEATED,
        /** The broker refused it for good (authorisation, size): not appended, so not staged. */
        REFUSED
    }

    public record Submission(ProposalCard card, Outcome outcome) {
    }

    private final ProposalDelivery delivery;
    private final Duration timeout;

    public ProposalPublisher(ProposalDelivery delivery, ProposalsConfig config) {
        this.delivery = delivery;
        this.timeout = config.publishTimeout();
    }

    public Submission submit(TurnScope turn, ValidatedParams params) {
        String kind = params.definition().kind();
        String paramsHash = params.hash();
        UUID actionId = ProposalIds.actionId(turn.turnId(), kind, paramsHash);
        Optional<ProposalCard> earlier = turn.proposal(actionId);
        if (earlier.isPresent()) {
            return new Submission(earlier.get(), Outcome.REPEATED);
        }
        Instant now = Instant.now();
        ActionProposed event = new ActionProposed(UUID.randomUUID(), ActionProposed.SCHEMA_VERSION, now, actionId,
                turn.tenantId(), turn.userId(), turn.conversation().conversationId(), turn.turnId(), kind,
                params.normalised(), paramsHash, null, null, turn.contextClean());
        var metadata = OutgoingKafkaRecordMetadata.<String>builder().withKey(actionId.toString())
                .withHeaders(turn.evidence().headers()).build();
        CompletableFuture<Void> delivered = delivery.deliver(actionId, Json.write(event), metadata);
        ProposalCard card = new ProposalCard(actionId, kind, params.summary(), params.normalised(), paramsHash, now);
        Outcome outcome = outcomeWithin(delivered);
        if (outcome != Outcome.REFUSED) {
            turn.addProposal(card);
        }
        return new Submission(card, outcome);
    }

    private Outcome outcomeWithin(CompletableFuture<Void> delivered) {
        try {
            delivered.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return Outcome.ACKNOWLEDGED;
        } catch (TimeoutException e) {
            // Not acknowledged (yet): whether the broker has it is unknown, so it is pending, not failed.
            return Outcome.PENDING;
        } catch (ExecutionException e) {
            // Within the wait only a refusal for good ends the delivery (the deadline is longer than the wait).
            return ProposalDelivery.mayPassOnRetry(e.getCause()) ? Outcome.PENDING : Outcome.REFUSED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.PENDING;
        }
    }
}
