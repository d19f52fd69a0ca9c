package dev.countersign.executor.imports;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Tier;
import dev.countersign.contracts.api.ApprovalPolicy;
import dev.countersign.contracts.api.ImportResult;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.TierPolicy;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.catalogue.Violation;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.db.TenantSessions;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.decision.DecisionAuthority;
import dev.countersign.executor.policy.TenantPolicyRepository;
import dev.countersign.web.ProblemException;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The gate for CSV imports, the same rules as for actions (docs/security/imports.md): rows go only into a wallet the
 * importer owns (an administrator included: no one imports into another user's wallet); a row at or above the tenant's
 * high-impact threshold is HIGH (the catalogue's tier rule for an expense), and where the tenant's approval policy
 * needs another approver for HIGH actions, its importer cannot confirm it, any other user of the tenant can. The
 * database keeps the trail (import_history, appended by a trigger on every import and confirmation) and refuses the
 * same moves as a backstop (migrations R__import_gate.sql, R__import_history.sql).
 * <p>
 * Under a policy of k > 1 approvals for HIGH, each person's confirmation of a HIGH row is recorded as an approval and
 * the k-th counted approver confirms it, as for actions.
 * <p>
 * Limits: the tier is judged against the threshold in force when a row is confirmed (the trail records the tier at each
 * step).
 */
@ApplicationScoped
public class ImportService {

    static final String NO_WALLET = "You have no wallet with this id.";

    private static final String LOCK_PENDING = """
            SELECT id, amount, imported_by FROM transactions
            WHERE tenant_id = $1 AND id = ANY($2) AND unconfirmed AND deleted_at IS NULL
            ORDER BY id FOR UPDATE""";

    private static final String PENDING = """
            SELECT t.id, t.wallet_id, w.name AS wallet_name, t.occurred_on, t.amount::text AS amount, t.category,
                   t.description, t.imported_by,
                   array(SELECT a.approver FROM import_approvals a WHERE a.tenant_id = t.tenant_id
                         AND a.transaction_id = t.id ORDER BY a.at, a.approver) AS approvers
            FROM transactions t JOIN wallets w ON w.tenant_id = t.tenant_id AND w.id = t.wallet_id
            WHERE t.tenant_id = $1 AND t.unconfirmed AND t.deleted_at IS NULL
            ORDER BY t.occurred_on, t.created_at, t.id LIMIT $2""";

    private final TenantTransactions transactions;
    private final TenantPolicyRepository policies;
    private final TenantSessions sessions;
    private final ImportHistoryRepository trail;

    public ImportService(TenantTransactions transactions, TenantPolicyRepository policies, TenantSessions sessions,
            ImportHistoryRepository trail) {
        this.transactions = transactions;
        this.policies = policies;
        this.sessions = sessions;
        this.trail = trail;
    }

    /** Stores {@code rows} unconfirmed in {@code walletId}, all or nothing, if the actor owns that wallet. */
    public Uni<ImportResult> importRows(Actor actor, UUID walletId, List<ValidatedParams> rows) {
        List<Tuple> batch = new ArrayList<>();
        List<UUID> ids = new ArrayList<>();
        for (ValidatedParams row : rows) {
            UUID id = UUID.randomUUID();
            ids.add(id);
            var params = row.normalised();
            batch.add(Tuple.from(new Object[]{id, actor.tenantId(), walletId,
                    new BigDecimal(params.get("amount").asText()), params.get("category").asText(),
                    params.hasNonNull("description") ? params.get("description").asText() : null,
                    LocalDate.parse(params.get("occurredOn").asText()), actor.userId()}));
        }
        return transactions.run(actor, sql -> sql
                .preparedQuery("SELECT owner_id FROM wallets WHERE id = $1 AND tenant_id = $2")
                .execute(Tuple.of(walletId, actor.tenantId()))
                .flatMap(found -> {
                    if (found.size() == 0) {
                        throw new ProblemException(ErrorCode.NOT_FOUND, NO_WALLET);
                    }
                    if (!actor.userId().equals(found.iterator().next().getString("owner_id"))) {
                        throw new ProblemException(ErrorCode.WALLET_NOT_OWNED, "This wallet is another user's: import"
                                + " into a wallet of your own. Nothing was imported.");
                    }
                    return sql.preparedQuery("""
                            INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, description,
                                                      occurred_on, unconfirmed, imported_by)
                            VALUES ($1, $2, $3, $4, $5, $6, $7, true, $8)""").executeBatch(batch);
                })
                .map(inserted -> new ImportResult(walletId, ids)));
    }

    /**
     * Confirms those of {@code ids} still unconfirmed: if the tenant's policy needs another approver for HIGH and the
     * actor imported a HIGH one of them, nothing is confirmed. Under a policy of k > 1 approvals, the actor's approval
     * of each HIGH row is recorded and the row is confirmed by its k-th counted approver. Answers how many rows this
     * request confirmed.
     */
    public Uni<Integer> confirm(Actor actor, List<UUID> ids) {
        return transactions.run(actor, sql -> policies.approvals(sql, actor.tenantId())
                .flatMap(approval -> policies.tiers(sql, actor.tenantId())
                        .flatMap(tiers -> sql.preparedQuery(LOCK_PENDING)
                                .execute(Tuple.of(actor.tenantId(), ids.toArray(UUID[]::new)))
                                .flatMap(pending -> confirmLocked(sql, actor, pending, approval, tiers)))));
    }

    private static Uni<Integer> confirmLocked(SqlClient sql, Actor actor, Iterable<Row> pending,
            ApprovalPolicy approval, TierPolicy tiers) {
        List<UUID> direct = new ArrayList<>();
        List<UUID> needApprovals = new ArrayList<>();
        List<Violation> refused = new ArrayList<>();
        for (Row row : pending) {
            UUID id = row.getUUID("id");
            boolean high = tier(row.getBigDecimal("amount"), tiers) == Tier.HIGH;
            if (high && approval.highNeedsOtherApprover() && actor.userId().equals(row.getString("imported_by"))) {
                refused.add(new Violation("transaction " + id,
                        "you imported it and it is at or above the high-impact threshold"));
            } else if (high && approval.highApprovals() > 1) {
                needApprovals.add(id);
            } else {
                direct.add(id);
            }
        }
        if (!refused.isEmpty()) {
            throw new ProblemException(ErrorCode.APPROVER_NOT_ALLOWED, "Another person of your tenant must confirm"
                    + " these rows: the tenant's approval policy needs an approver other than the importer for rows"
                    + " at or above the high-impact threshold. Nothing was confirmed; confirm the others without them.",
                    refused);
        }
        return approve(sql, actor, needApprovals, approval).flatMap(approved -> {
            direct.addAll(approved);
            return markConfirmed(sql, actor, direct);
        });
    }

    /**
     * Records the actor's approval of each of {@code rows} (approving twice counts once) and answers those that now
     * have the policy's number of approvers (the importer not counted where another approver is needed).
     */
    private static Uni<List<UUID>> approve(SqlClient sql, Actor actor, List<UUID> rows, ApprovalPolicy policy) {
        if (rows.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        UUID[] ids = rows.toArray(UUID[]::new);
        return sql.preparedQuery("""
                INSERT INTO import_approvals (transaction_id, tenant_id, approver, channel)
                SELECT id, $2, $3, $4 FROM unnest($1::uuid[]) AS id
                ON CONFLICT (transaction_id, approver) DO NOTHING""")
                .execute(Tuple.of(ids, actor.tenantId(), actor.userId(), actor.channel()))
                .flatMap(inserted -> sql.preparedQuery("""
                        SELECT t.id FROM transactions t
                        WHERE t.tenant_id = $1 AND t.id = ANY($2)
                          AND (SELECT count(*) FROM import_approvals a
                               WHERE a.tenant_id = t.tenant_id AND a.transaction_id = t.id
                                 AND (NOT $3 OR a.approver <> t.imported_by)) >= $4""")
                        .execute(Tuple.of(actor.tenantId(), ids, policy.highNeedsOtherApprover(),
                                policy.highApprovals())))
                .map(enough -> {
                    List<UUID> ready = new ArrayList<>();
                    enough.forEach(row -> ready.add(row.getUUID("id")));
                    return ready;
                });
    }

    private static Uni<Integer> markConfirmed(SqlClient sql, Actor actor, List<UUID> rows) {
        if (rows.isEmpty()) {
            return Uni.createFrom().item(0);
        }
        return sql.preparedQuery("""
                UPDATE transactions SET unconfirmed = false, import_confirmed_by = $3
                WHERE tenant_id = $1 AND id = ANY($2) AND unconfirmed""")
                .execute(Tuple.of(actor.tenantId(), rows.toArray(UUID[]::new), actor.userId()))
                .map(updated -> updated.rowCount());
    }

    /**
     * Rejects those of {@code ids} still waiting for a person: each leaves the books (removed, never confirmed), and
     * the trail names who rejected it. Their importer or an approver of the tenant may; if any of them is neither the
     * actor's import nor the actor an approver, nothing is rejected. Answers how many rows this request rejected.
     */
    public Uni<Integer> reject(Actor actor, List<UUID> ids, boolean approver) {
        return transactions.run(actor, sql -> sql.preparedQuery(LOCK_PENDING)
                .execute(Tuple.of(actor.tenantId(), ids.toArray(UUID[]::new)))
                .flatMap(pending -> {
                    List<UUID> rows = new ArrayList<>();
                    List<Violation> refused = new ArrayList<>();
                    for (Row row : pending) {
                        rows.add(row.getUUID("id"));
                        if (!new DecisionAuthority.Person(approver).mayDecide(actor.userId(),
                                row.getString("imported_by"))) {
                            refused.add(new Violation("transaction " + row.getUUID("id"),
                                    "imported by someone else; an approver may reject it"));
                        }
                    }
                    if (!refused.isEmpty()) {
                        throw new ProblemException(ErrorCode.FORBIDDEN, "Only the importer of a row, or an approver"
                                + " of your tenant, may reject it. Nothing was rejected.", refused);
                    }
                    if (rows.isEmpty()) {
                        return Uni.createFrom().item(0);
                    }
                    return sql.preparedQuery("""
                            UPDATE transactions SET deleted_at = now(), import_rejected_by = $3
                            WHERE tenant_id = $1 AND id = ANY($2) AND unconfirmed AND deleted_at IS NULL""")
                            .execute(Tuple.of(actor.tenantId(), rows.toArray(UUID[]::new), actor.userId()))
                            .map(updated -> updated.rowCount());
                }));
    }

    /** The tenant's imported rows still waiting for a person, by date, with their tier now and their approvers. */
    public Uni<List<PendingImport>> pending(String tenantId, int limit) {
        return transactions.read(tenantId, sql -> policies.tiers(sql, tenantId).flatMap(tiers -> sql
                .preparedQuery(PENDING).execute(Tuple.of(tenantId, limit))
                .map(rows -> {
                    List<PendingImport> pending = new ArrayList<>();
                    rows.forEach(row -> pending.add(pendingImport(row, tiers)));
                    return pending;
                })));
    }

    private static PendingImport pendingImport(Row row, TierPolicy tiers) {
        return new PendingImport(row.getUUID("id"), row.getUUID("wallet_id"), row.getString("wallet_name"),
                row.getLocalDate("occurred_on"),
                row.getString("amount"), row.getString("category"), row.getString("description"),
                row.getString("imported_by"), tier(new BigDecimal(row.getString("amount")), tiers).wireName(),
                List.of(row.getArrayOfStrings("approvers")));
    }

    /** The trail of one imported row, oldest first; empty if the tenant has no such imported row. */
    public Uni<List<ImportHistoryEntry>> history(String tenantId, UUID transactionId) {
        return sessions.read(tenantId, () -> trail.of(tenantId, transactionId));
    }

    /** The catalogue's tier rule for an expense of {@code amount}. */
    private static Tier tier(BigDecimal amount, TierPolicy policy) {
        var params = Json.mapper().createObjectNode().put("amount", amount.toPlainString());
        return ActionCatalogue.find(ActionCatalogue.CREATE_TRANSACTION).orElseThrow().tierFor(params, policy);
    }

    /**
     * An imported row as the person reviews it before confirming; {@code walletName} as the wallet is named now;
     * {@code tier} against today's threshold; {@code approvers} so far, for a HIGH row under a policy of more than one
     * approval.
     */
    public record PendingImport(UUID id, UUID walletId, String walletName, LocalDate occurredOn, String amount,
            String category,
            String description, String importedBy, String tier, List<String> approvers) {
    }

    /**
     * One step of an imported row: {@code imported}, {@code approved} (under a k-of-n policy) or {@code confirmed}, by
     * whom, through what, its tier then.
     */
    public record ImportHistoryEntry(String event, String actor, String channel, UUID walletId, String amount,
            String tier, java.time.Instant at) {
    }
}
