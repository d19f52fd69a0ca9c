package dev.countersign.executor.imports;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Tier;
import dev.countersign.contracts.api.ImportResult;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.TierPolicy;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.catalogue.Violation;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.action.TenantTransactions;
import dev.countersign.executor.action.TenantTransactions.Actor;
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
 * same moves as a backstop (migration V17).
 * <p>
 * Limits: the tier is judged against the threshold in force when a row is confirmed (the trail records the tier at each
 * step); k-of-n approvals ({@code highApprovals}) are not applied to imports, one other person suffices.
 */
@ApplicationScoped
public class ImportService {

    static final String NO_WALLET = "You have no wallet with this id.";

    private final TenantTransactions transactions;
    private final TenantPolicyRepository policies;

    public ImportService(TenantTransactions transactions, TenantPolicyRepository policies) {
        this.transactions = transactions;
        this.policies = policies;
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
     * Confirms those of {@code ids} still unconfirmed, all or none: if the tenant's policy needs another approver for
     * HIGH and the actor imported a HIGH one of them, nothing is confirmed. Answers how many were confirmed.
     */
    public Uni<Integer> confirm(Actor actor, List<UUID> ids) {
        return transactions.run(actor, sql -> policies.approvals(sql, actor.tenantId())
                .flatMap(approval -> policies.tiers(sql, actor.tenantId()).flatMap(tiers -> sql.preparedQuery("""
                        SELECT id, amount, imported_by FROM transactions
                        WHERE tenant_id = $1 AND id = ANY($2) AND unconfirmed AND deleted_at IS NULL
                        ORDER BY id FOR UPDATE""")
                        .execute(Tuple.of(actor.tenantId(), ids.toArray(UUID[]::new)))
                        .flatMap(pending -> {
                            List<UUID> locked = new ArrayList<>();
                            List<Violation> refused = new ArrayList<>();
                            for (Row row : pending) {
                                locked.add(row.getUUID("id"));
                                if (approval.highNeedsOtherApprover()
                                        && actor.userId().equals(row.getString("imported_by"))
                                        && tier(row.getBigDecimal("amount"), tiers) == Tier.HIGH) {
                                    refused.add(new Violation("transaction " + row.getUUID("id"),
                                            "you imported it and it is at or above the high-impact threshold"));
                                }
                            }
                            if (!refused.isEmpty()) {
                                throw new ProblemException(ErrorCode.APPROVER_NOT_ALLOWED, "Another person of your"
                                        + " tenant must confirm these rows: the tenant's approval policy needs an"
                                        + " approver other than the importer for rows at or above the high-impact"
                                        + " threshold. Nothing was confirmed; confirm the others without them.",
                                        refused);
                            }
                            return confirmLocked(sql, actor, locked);
                        }))));
    }

    private static Uni<Integer> confirmLocked(SqlClient sql, Actor actor, List<UUID> locked) {
        if (locked.isEmpty()) {
            return Uni.createFrom().item(0);
        }
        return sql.preparedQuery("""
                UPDATE transactions SET unconfirmed = false, import_confirmed_by = $3
                WHERE tenant_id = $1 AND id = ANY($2) AND unconfirmed""")
                .execute(Tuple.of(actor.tenantId(), locked.toArray(UUID[]::new), actor.userId()))
                .map(rows -> rows.rowCount());
    }

    /** The tenant's imported rows still waiting for a person, by date, with their tier now. */
    public Uni<List<PendingImport>> pending(String tenantId, int limit) {
        return transactions.read(tenantId,
                sql -> policies.tiers(sql, tenantId)
                        .flatMap(tiers -> sql
                                .preparedQuery(
                                        """
                                                SELECT t.id, t.wallet_id, t.occurred_on, t.amount::text AS amount, t.category, t.description, t.imported_by
                                                FROM transactions t
                                                WHERE t.tenant_id = $1 AND t.unconfirmed AND t.deleted_at IS NULL
                                                ORDER BY t.occurred_on, t.created_at, t.id LIMIT $2""")
                                .execute(Tuple.of(tenantId, limit))
                                .map(rows -> {
                                    List<PendingImport> pending = new ArrayList<>();
                                    rows.forEach(row -> pending
                                            .add(new PendingImport(row.getUUID("id"), row.getUUID("wallet_id"),
                                                    row.getLocalDate("occurred_on"), row.getString("amount"),
                                                    row.getString("category"), row.getString("description"),
                                                    row.getString("imported_by"),
                                                    tier(new BigDecimal(row.getString("amount")), tiers).wireName())));
                                    return pending;
                                })));
    }

    /** The trail of one imported row, oldest first; empty if the tenant has no such imported row. */
    public Uni<List<ImportHistoryEntry>> history(String tenantId, UUID transactionId) {
        return transactions.read(tenantId, sql -> sql.preparedQuery("""
                SELECT event, actor, channel, wallet_id, amount::text AS amount, tier, at FROM import_history
                WHERE tenant_id = $1 AND transaction_id = $2 ORDER BY id""")
                .execute(Tuple.of(tenantId, transactionId))
                .map(rows -> {
                    List<ImportHistoryEntry> entries = new ArrayList<>();
                    rows.forEach(row -> entries.add(new ImportHistoryEntry(row.getString("event"),
                            row.getString("actor"), row.getString("channel"), row.getUUID("wallet_id"),
                            row.getString("amount"), row.getString("tier"),
                            row.getOffsetDateTime("at").toInstant())));
                    return entries;
                }));
    }

    /** The catalogue's tier rule for an expense of {@code amount}. */
    private static Tier tier(BigDecimal amount, TierPolicy policy) {
        var params = Json.mapper().createObjectNode().put("amount", amount.toPlainString());
        return ActionCatalogue.find(ActionCatalogue.CREATE_TRANSACTION).orElseThrow().tierFor(params, policy);
    }

    /** An imported row as the person reviews it before confirming; {@code tier} against today's threshold. */
    public record PendingImport(UUID id, UUID walletId, LocalDate occurredOn, String amount, String category,
            String description, String importedBy, String tier) {
    }

    /** One step of an imported row: {@code imported} or {@code confirmed}, by whom, through what, its tier then. */
    public record ImportHistoryEntry(String event, String actor, String channel, UUID walletId, String amount,
            String tier, java.time.Instant at) {
    }
}
