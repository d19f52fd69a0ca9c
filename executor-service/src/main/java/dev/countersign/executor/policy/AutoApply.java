package dev.countersign.executor.policy;

import java.math.BigDecimal;
import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Requesters;
import dev.countersign.contracts.Tier;
import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.executor.action.ActionRow;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The one rule for which staged actions apply on arrival, without a person: only while the tenant's agent writes are
 * {@code enabled}, only for a row of the requester's own (their wallet, a transaction in it, their plan: another user's
 * data always waits for a person), never an external send, never a service principal's proposal; then LOW always,
 * MEDIUM once the requester's agent earned trust ({@link EarnedTrust}), HIGH never, decided from the tier before trust
 * is read. The tier itself comes from the catalogue and the tenant's threshold, never from the proposal.
 */
@ApplicationScoped
public class AutoApply {

    /** The owner of the row an action of each kind writes, by its id parameter; the plan kinds are the requester's. */
    private static final Map<String, Owner> OWNERS = Map.of(
            ActionCatalogue.CREATE_TRANSACTION, new Owner("walletId",
                    "SELECT owner_id FROM wallets WHERE id = $1 AND current_tenant() = $2"),
            ActionCatalogue.RENAME_WALLET, new Owner("walletId",
                    "SELECT owner_id FROM wallets WHERE id = $1 AND current_tenant() = $2"),
            ActionCatalogue.EDIT_TRANSACTION, new Owner("transactionId", Owner.OF_TRANSACTION),
            ActionCatalogue.DELETE_TRANSACTION, new Owner("transactionId", Owner.OF_TRANSACTION),
            ActionCatalogue.DRAFT_PLAN, Owner.REQUESTER,
            ActionCatalogue.REVISE_PLAN, Owner.REQUESTER);

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
        return requesterOwns(sql, staged).flatMap(own -> {
            if (!own) {
                return Uni.createFrom().nullItem();
            }
            if (staged.tier() == Tier.LOW) {
                return Uni.createFrom().item("tier low");
            }
            return trust.earned(sql, staged.tenantId(), staged.requestedBy())
                    .map(earned -> earned ? "tier medium, trust earned" : null);
        });
    }

    /**
     * What applying {@code action} spends of the auto-apply budget in money, besides one action: an expense its amount,
     * an edit the size of its change to the amount (a new category or note: nothing), every other kind nothing.
     */
    public static BigDecimal budgetAmount(ActionRow action) {
        BigDecimal amount = action.param("amount", BigDecimal::new);
        if (amount == null) {
            return BigDecimal.ZERO;
        }
        if (ActionCatalogue.EDIT_TRANSACTION.equals(action.kind())) {
            JsonNode before = action.targetBefore();
            // An edit staged without a snapshot counts as the whole new amount: the size of its change is unknown.
            return before == null || !before.hasNonNull("amount")
                    ? amount
                    : amount.subtract(new BigDecimal(before.get("amount").asText())).abs();
        }
        return amount;
    }

    private static Uni<Boolean> requesterOwns(SqlClient sql, ActionRow staged) {
        Owner owner = OWNERS.get(staged.kind());
        if (owner == null) {
            return Uni.createFrom().item(false);
        }
        if (owner == Owner.REQUESTER) {
            return Uni.createFrom().item(true);
        }
        UUID id = UUID.fromString(staged.params().get(owner.idParam()).asText());
        return sql.preparedQuery(owner.query()).execute(Tuple.of(id, staged.tenantId()))
                .map(rows -> rows.size() > 0
                        && staged.requestedBy().equals(rows.iterator().next().getString("owner_id")));
    }

    /** How to find the owner of the row an action writes: {@code query} takes the id and the tenant. */
    private record Owner(String idParam, String query) {

        static final String OF_TRANSACTION = """
                SELECT w.owner_id FROM transactions t JOIN wallets w ON w.id = t.wallet_id AND w.tenant_id = t.tenant_id
                WHERE t.id = $1 AND current_tenant() = $2""";
        /**
         * Kinds that only ever write the requester's own rows (plans: drafts are created for, and revised by, them).
         */
        static final Owner REQUESTER = new Owner(null, null);
    }
}
