package dev.countersign.executor.execution;

import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.TargetSnapshot;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The existing row an action of a kind changes, and how to read its version and the fields a person is shown, named as
 * the catalogue names the parameters (so the diff pairs them). Staging reads it into the action; execution writes only
 * while the row still has that version, and {@link #written} says why it did not.
 */
@ApplicationScoped
public class Targets {

    private static final String TRANSACTION = """
            SELECT version, jsonb_build_object('amount', amount::text, 'category', category, 'description', description,
                                               'occurredOn', occurred_on::text)::text AS fields
            FROM transactions WHERE id = $1 AND current_tenant() = $2 AND deleted_at IS NULL AND NOT unconfirmed""";

    private static final Map<String, Target> BY_KIND = Map.of(
            ActionCatalogue.EDIT_TRANSACTION, new Target("transactionId", "transaction", false, TRANSACTION),
            ActionCatalogue.DELETE_TRANSACTION, new Target("transactionId", "transaction", false, TRANSACTION),
            ActionCatalogue.RENAME_WALLET, new Target("walletId", "wallet", false, """
                    SELECT version, jsonb_build_object('name', name)::text AS fields
                    FROM wallets WHERE id = $1 AND current_tenant() = $2"""),
            ActionCatalogue.SEND_MAIL,
            new Target("caseId", "support case", false,
                    """
                            SELECT version, jsonb_build_object('requestorEmail', requestor_email, 'title', title)::text AS fields
                            FROM support_cases WHERE id = $1 AND current_tenant() = $2"""),
            ActionCatalogue.REVISE_PLAN, new Target("planId", "draft plan", true, """
                    SELECT version, jsonb_build_object('name', name, 'goal', goal, 'startsOn', starts_on::text,
                                                       'schedule', schedule)::text AS fields
                    FROM training_plans
                    WHERE id = $1 AND current_tenant() = $2 AND user_id = $3 AND status = 'draft'"""));

    /** Whose wallet a row of the ledger is in ($1 the wallet's or the transaction's id, $2 the tenant). */
    private static final String WALLET_OWNER = """
            SELECT owner_id AS owner FROM wallets WHERE id = $1 AND current_tenant() = $2""";
    private static final String TRANSACTION_OWNER = """
            SELECT w.owner_id AS owner FROM transactions t JOIN wallets w ON w.tenant_id = t.tenant_id AND w.id = t.wallet_id
            WHERE t.id = $1 AND current_tenant() = $2""";

    /**
     * Whose row an action of a kind writes, read from the row it names (a null query: always the requester's own, as a
     * training plan is). A kind not listed writes a row nobody owns (a support case, a ticket).
     */
    private static final Map<String, Owner> OWNERS = Map.of(
            ActionCatalogue.CREATE_TRANSACTION, new Owner("walletId", WALLET_OWNER),
            ActionCatalogue.RENAME_WALLET, new Owner("walletId", WALLET_OWNER),
            ActionCatalogue.EDIT_TRANSACTION, new Owner("transactionId", TRANSACTION_OWNER),
            ActionCatalogue.DELETE_TRANSACTION, new Owner("transactionId", TRANSACTION_OWNER),
            ActionCatalogue.DRAFT_PLAN, new Owner(null, null),
            ActionCatalogue.REVISE_PLAN, new Owner(null, null));

    /**
     * The person whose row an action of {@code kind} writes, as it is now: null for a row nobody owns, or one that does
     * not exist (staging refuses a missing target anyway).
     */
    public Uni<String> owner(SqlClient sql, String kind, JsonNode params, String tenantId, String requestedBy) {
        Owner owner = OWNERS.get(kind);
        if (owner == null) {
            return Uni.createFrom().nullItem();
        }
        if (owner.query() == null) {
            return Uni.createFrom().item(requestedBy);
        }
        UUID id = UUID.fromString(params.get(owner.idParam()).asText());
        return sql.preparedQuery(owner.query()).execute(Tuple.of(id, tenantId))
                .map(rows -> rows.size() == 0 ? null : rows.iterator().next().getString("owner"));
    }

    /** Whether {@code kind}'s row owner is declared here (else its rows are nobody's, the tenant's: external sends). */
    public boolean declaresOwner(String kind) {
        return OWNERS.containsKey(kind);
    }

    /** Whether actions of {@code kind} change an existing row. */
    public boolean hasTarget(String kind) {
        return BY_KIND.containsKey(kind);
    }

    /**
     * The target of a proposal as it is now, or empty if it does not exist for this requester (or the kind has no
     * target).
     */
    public Uni<Optional<TargetSnapshot>> read(SqlClient sql, String kind, JsonNode params, String tenantId,
            String requestedBy) {
        Target target = BY_KIND.get(kind);
        if (target == null) {
            return Uni.createFrom().item(Optional.empty());
        }
        UUID id = UUID.fromString(params.get(target.idParam()).asText());
        Tuple arguments = target.requestersOwn() ? Tuple.of(id, tenantId, requestedBy) : Tuple.of(id, tenantId);
        return sql.preparedQuery(target.query()).execute(arguments).map(rows -> rows.size() == 0
                ? Optional.<TargetSnapshot>empty()
                : Optional.of(new TargetSnapshot(rows.iterator().next().getLong("version"),
                        Json.read(rows.iterator().next().getString("fields"), JsonNode.class))));
    }

    /**
     * Completes if the action's target still has the version it was staged with; fails with {@code target_changed} or
     * {@code target_not_found} otherwise. For writes outside this database, which cannot guard their own statement.
     */
    public Uni<Void> unchangedSinceStaging(SqlClient sql, ActionRow action) {
        if (!hasTarget(action.kind())) {
            return Uni.createFrom().voidItem();
        }
        return read(sql, action.kind(), action.params(), action.tenantId(), action.requestedBy())
                .flatMap(now -> now.isPresent() && Long.valueOf(now.get().version()).equals(action.targetVersion())
                        ? Uni.createFrom().voidItem()
                        : refuse(sql, action));
    }

    /** Why the target was not found for staging, in words. */
    public String missing(String kind, JsonNode params) {
        Target target = BY_KIND.get(kind);
        return "%s %s does not exist in this tenant".formatted(target.noun(), params.get(target.idParam()).asText());
    }

    /**
     * The rows of a write guarded by the staged version; if it matched none, a failure saying why:
     * {@code target_not_found} if the row is gone, {@code target_changed} if it moved on since the action was staged.
     */
    public Uni<RowSet<Row>> written(SqlClient sql, ActionRow action, RowSet<Row> rows) {
        return rows.rowCount() == 0 ? refuse(sql, action) : Uni.createFrom().item(rows);
    }

    private <T> Uni<T> refuse(SqlClient sql, ActionRow action) {
        return read(sql, action.kind(), action.params(), action.tenantId(), action.requestedBy())
                .flatMap(now -> Uni.createFrom().failure(now.isEmpty()
                        ? new ExecutionRefused(ErrorCode.TARGET_NOT_FOUND, missing(action.kind(), action.params()))
                        : new ExecutionRefused(ErrorCode.TARGET_CHANGED, ("the %s changed since it was staged"
                                + " (version %d then, %d now); propose it again")
                                .formatted(BY_KIND.get(action.kind()).noun(), action.targetVersion(),
                                        now.get().version()))));
    }

    /**
     * @param requestersOwn
     *            the row belongs to the requester, not just the tenant: the query takes the requester as {@code $3}
     */
    private record Target(String idParam, String noun, boolean requestersOwn, String query) {
    }

    /** Where an action's row owner is read: the parameter naming the row and the query; both null: the requester. */
    private record Owner(String idParam, String query) {
    }
}
