package dev.countersign.executor.gate;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.Tier;
import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.api.TrustLevel;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.policy.TrustRepository;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * The one rule for which staged actions apply on arrival, without a person: only while the tenant's agent writes are
 * {@code enabled}; LOW always; MEDIUM once the requester's agent earned trust (a person confirmed {@code trust-after}
 * MEDIUM actions of this user in a row, with no undo or cancelled MEDIUM proposal since); HIGH never, decided from the
 * tier before trust is read. The tier itself comes from the catalogue and the tenant's threshold, never from the
 * proposal.
 */
@ApplicationScoped
public class AutoApply {

    private final TrustRepository trust;
    private final int trustAfter;

    public AutoApply(TrustRepository trust, ActionsConfig config) {
        this.trust = trust;
        this.trustAfter = config.trustAfter();
    }

    /** Why {@code staged} applies on arrival (recorded in its history), or null if it waits for a person. */
    public Uni<String> reason(SqlClient sql, ActionRow staged, AgentWritesPolicy.Mode agentWrites) {
        if (agentWrites != AgentWritesPolicy.Mode.ENABLED || staged.tier() == Tier.HIGH
                || staged.tier() == Tier.READ) {
            return Uni.createFrom().nullItem();
        }
        if (staged.tier() == Tier.LOW) {
            return Uni.createFrom().item("tier low");
        }
        return trust.find(sql, staged.tenantId(), staged.requestedBy()).map(run -> earned(run)
                ? "tier medium, trust earned (%d confirmed in a row)".formatted(run.mediumConfirmedInARow())
                : null);
    }

    /** What {@code userId} sees of their trust. */
    public Uni<TrustLevel> level(SqlClient sql, String tenantId, String userId, AgentWritesPolicy.Mode agentWrites) {
        return trust.find(sql, tenantId, userId).map(run -> new TrustLevel(userId, run.mediumConfirmedInARow(),
                trustAfter, agentWrites == AgentWritesPolicy.Mode.ENABLED && earned(run), run.resetAt(),
                run.resetBecause()));
    }

    private boolean earned(TrustRepository.Run run) {
        return run.mediumConfirmedInARow() >= trustAfter;
    }
}
