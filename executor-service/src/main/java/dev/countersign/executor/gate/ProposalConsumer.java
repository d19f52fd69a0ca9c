package dev.countersign.executor.gate;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

import dev.countersign.contracts.events.ActionProposed;
import dev.countersign.contracts.json.Json;
import dev.countersign.contracts.json.MalformedEventException;
import dev.countersign.executor.outbox.OutboxRelay;
import io.smallrye.mutiny.Uni;

/**
 * Consumes {@code countersign.actions.proposed}. An unreadable record fails at once and goes to the dead-letter topic
 * (it can never succeed); a database failure is retried with back-off and holds the partition, so nothing is skipped or
 * reordered while PostgreSQL is away. The offset is committed only after the staging transaction commits.
 */
@ApplicationScoped
public class ProposalConsumer {

    private static final Logger LOG = Logger.getLogger(ProposalConsumer.class);

    private final StagingService staging;
    private final OutboxRelay relay;

    public ProposalConsumer(StagingService staging, OutboxRelay relay) {
        this.staging = staging;
        this.relay = relay;
    }

    @Incoming("proposals")
    public Uni<Void> consume(String payload) {
        ActionProposed proposal;
        try {
            proposal = Json.read(payload, ActionProposed.class);
        } catch (MalformedEventException e) {
            LOG.warnf("Unreadable proposal sent to the dead-letter topic: %s", e.getMessage());
            return Uni.createFrom().failure(e);
        }
        return TransientFailures.retryWhileTransient(staging.stage(proposal), LOG, "Staging " + proposal.actionId())
                .onFailure().recoverWithUni(failure -> {
                    LOG.errorf("Staging %s failed for good (%s); recording it as rejected", proposal.actionId(),
                            failure.getMessage());
                    // If recording the rejection fails too, the record goes to the dead-letter topic.
                    return staging.rejectUnstorable(proposal);
                })
                .invoke(wroteOutbox -> {
                    if (wroteOutbox) {
                        relay.wakeUp();
                    }
                })
                .replaceWithVoid();
    }
}
