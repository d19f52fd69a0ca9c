package dev.countersign.executor.policy;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.Tier;
import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.api.TrustLevel;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.ActionsConfig;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * The one place of the earned-trust rule: a user's agent earns auto-apply for MEDIUM actions once a person confirmed
 * {@code trust-after} MEDIUM actions of that user in a row; what the tier rules applied does not count; an undo of any
 * of the user's actions, or a person cancelling one of the user's MEDIUM proposals, starts the run again. Each method
 * runs in the caller's transaction, so the count moves with the decision that moves it.
 */
@ApplicationScoped
public class EarnedTrust {

    private final TrustRepository trust;
    private final int trustAfter;

    public EarnedTrust(TrustRepository trust, ActionsConfig config) {
        this.trust = trust;
        this.trustAfter = config.trustAfter();
    }

    /**
     * Whether {@code userId}'s agent has earned trust now. The run's row is read FOR SHARE, so a reset committing at
     * the same time (an undo) is ordered before or after this decision, not interleaved.
     */
    public Uni<Boolean> earned(SqlClient sql, String tenantId, String userId) {
        return trust.findForShare(sql, tenantId, userId).map(run -> run.mediumConfirmedInARow() >= trustAfter);
    }

    // A MEDIUM action a person confirmed counts towards the run when it is executed, in the statement that marks it
    // executed (execute_action in R__execute_action.sql); the tier rules' own moves do not count.

    /** After a person cancelled a proposal. */
    public Uni<Void> cancelled(SqlClient sql, ActionRow cancelled) {
        return cancelled.tier() == Tier.MEDIUM && agentProposed(cancelled)
                ? trust.reset(sql, cancelled.tenantId(), cancelled.requestedBy(), "cancelled " + cancelled.id())
                : Uni.createFrom().voidItem();
    }

    /** After a person edited a proposal before approving it: what was proposed was not taken as it was. */
    public Uni<Void> edited(SqlClient sql, ActionRow superseded) {
        return superseded.tier() == Tier.MEDIUM && agentProposed(superseded)
                ? trust.reset(sql, superseded.tenantId(), superseded.requestedBy(), "edited " + superseded.id())
                : Uni.createFrom().voidItem();
    }

    /** After a person undid an executed action. */
    public Uni<Void> undone(SqlClient sql, ActionRow undone) {
        return agentProposed(undone)
                ? trust.reset(sql, undone.tenantId(), undone.requestedBy(), "undid " + undone.id())
                : Uni.createFrom().voidItem();
    }

    /**
     * Whether the action is its requester's agent's proposal: not a person's edit (edit before approve), whose
     * requester is the editor. An edit neither earns trust (R__execute_action.sql) nor loses it.
     */
    private static boolean agentProposed(ActionRow action) {
        return action.supersedes() == null;
    }

    /** What {@code userId} sees of their trust; MEDIUM applies on arrival only while agent writes are enabled. */
    public TrustLevel level(TrustRepository.Run run, String userId, AgentWritesPolicy.Mode agentWrites) {
        boolean agentWritesEnabled = agentWrites == AgentWritesPolicy.Mode.ENABLED;
        return new TrustLevel(userId, run.mediumConfirmedInARow(), trustAfter,
                agentWritesEnabled && run.mediumConfirmedInARow() >= trustAfter, run.resetAt(), run.resetBecause());
    }
}
