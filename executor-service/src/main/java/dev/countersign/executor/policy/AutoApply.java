package dev.countersign.executor.policy;

import java.math.BigDecimal;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.Requesters;
import dev.countersign.contracts.Tier;
import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.executor.action.ActionRow;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * The one rule for which staged actions apply on arrival, without a person: only while the tenant's agent writes are
 * {@code enabled}, only for a row of the requester's own (their wallet, a transaction in it, their plan: another user's
 * data always waits for a person), never an external send, never a service principal's proposal; then LOW always,
 * MEDIUM once the requester's agent earned trust ({@link EarnedTrust}), HIGH never, decided from the tier before trust
 * is read. The tier itself comes from the catalogue and the tenant's threshold, never from the proposal.
 */
@ApplicationScoped
public class AutoApply {

    private final EarnedTrust trust;

    public AutoApply(EarnedTrust trust) {
        this.trust = trust;
    }

    /** Why {@code staged} applies on arrival (recorded in its history), or null if it waits for a person. */
    public Uni<String> reason(SqlClient sql, ActionRow staged, AgentWritesPolicy.Mode agentWrites) {
        ActionDefinition definition = ActionCatalogue.find(staged.kind()).orElseThrow();
        // A service principal's proposal (an integration, not a person) always waits for a person.
        if (agentWrites != AgentWritesPolicy.Mode.ENABLED || definition.isExternal()
                || Requesters.isService(staged.requestedBy())
                || (staged.tier() != Tier.LOW && staged.tier() != Tier.MEDIUM)) {
            return Uni.createFrom().nullItem();
        }
        // The row's owner, read at staging (Targets.owner): another person's row, or nobody's, waits for a person.
        if (!staged.requestedBy().equals(staged.targetOwner())) {
            return Uni.createFrom().nullItem();
        }
        if (staged.tier() == Tier.LOW) {
            return Uni.createFrom().item("tier low");
        }
        return trust.earned(sql, staged.tenantId(), staged.requestedBy())
                .map(earned -> earned ? "tier medium, trust earned" : null);
    }

    /**
     * What applying {@code action} spends of the auto-apply budget in money, besides one action: what its kind's
     * declaration says ({@link dev.countersign.contracts.catalogue.BudgetAmount}; an expense its amount, an edit the
     * size of its change to the amount), nothing for a kind that declares none.
     */
    public static BigDecimal budgetAmount(ActionRow action) {
        return ActionCatalogue.find(action.kind()).map(ActionDefinition::budgetAmount)
                .map(budget -> budget.of(action.params(), action.targetBefore())).orElse(BigDecimal.ZERO);
    }
}
