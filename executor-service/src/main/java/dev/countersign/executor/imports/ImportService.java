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
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.contracts.catalogue.TierPolicy;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.catalogue.Violation;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.access.Channel;
import dev.countersign.executor.access.DecisionRule;
import dev.countersign.executor.access.Operation;
import dev.countersign.executor.access.Principal;
import dev.countersign.executor.access.Verdict;
import dev.countersign.executor.db.TenantSessions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.decision.SeparationOfDuties;
import dev.countersign.executor.imports.csv.CsvLines;
import dev.countersign.executor.policy.PolicySettingsRepository;
import dev.countersign.web.ProblemException;
import io.smallrye.mutiny.Uni;

/**
 * The gate for CSV imports, the same rules as for actions (docs/security/imports.md): rows go only into a wallet the
 * importer owns (an administrator included: no one imports into another user's wallet); a row at or above the tenant's
 * high-impact threshold is HIGH (the catalogue's tier rule for an expense), and where the tenant's approval policy
 * needs another approver for HIGH actions, its importer cannot confirm it, an approver of the tenant can (who may
 * confirm or reject at all is the decision rule's answer, DecisionRule). The database keeps the trail (import_history,
 * appended by a trigger on every import and confirmation) and refuses the same moves as a backstop (migrations
 * R__import_gate.sql, R__import_history.sql).
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

    private final ActionDefinition expense;
    private final TenantSessions sessions;
    private final PolicySettingsRepository policies;
    private final ImportedRowRepository rows;
    private final ImportApprovalRepository approvals;
    private final ImportHistoryRepository trail;

    public ImportService(TenantSessions sessions, PolicySettingsRepository policies, ImportedRowRepository rows,
            ImportApprovalRepository approvals, ImportHistoryRepository trail, ImportsConfig config) {
        this.expense = ActionCatalogue.find(config.kind()).orElseThrow(() -> new IllegalStateException(
                "countersign.imports.kind names " + config.kind() + ", which the catalogue does not declare"));
        for (String param : CsvLines.PARAMS) {
            if (expense.param(param).isEmpty()) {
                throw new IllegalStateException("countersign.imports.kind: " + config.kind() + " has no parameter "
                        + param + ", which an imported line fills");
            }
        }
        this.sessions = sessions;
        this.policies = policies;
        this.rows = rows;
        this.approvals = approvals;
        this.trail = trail;
    }

    /**
     * Stores the rows of {@code parsed} unconfirmed in {@code walletId}, all or nothing, if the actor owns that wallet;
     * the answer names the lines it skipped.
     */
    public Uni<ImportResult> importRows(Actor actor, UUID walletId, CsvLines.Parsed parsed) {
        List<ImportedRow> batch = new ArrayList<>();
        for (ValidatedParams row : parsed.rows()) {
            var params = row.normalised();
            batch.add(ImportedRow.unconfirmed(actor.tenantId(), walletId, new BigDecimal(params.get("amount").asText()),
                    params.get("category").asText(),
                    params.hasNonNull("description") ? params.get("description").asText() : null,
                    LocalDate.parse(params.get("occurredOn").asText()), actor.userId()));
        }
        return sessions.run(actor, () -> rows.walletOwner(walletId, actor.tenantId()).flatMap(owner -> {
            if (owner == null) {
                throw new ProblemException(ErrorCode.NOT_FOUND, NO_WALLET);
            }
            if (!actor.userId().equals(owner)) {
                throw new ProblemException(ErrorCode.WALLET_NOT_OWNED, "This wallet is another user's: import"
                        + " into a wallet of your own. Nothing was imported.");
            }
            return rows.importUnconfirmed(batch);
        })).map(stored -> new ImportResult(walletId, batch.stream().map(row -> row.id).toList(),
                parsed.skipped()));
    }

    /**
     * Confirms those of {@code ids} still unconfirmed: if the tenant's policy needs another approver for HIGH and the
     * actor imported a HIGH one of them, nothing is confirmed. Under a policy of k > 1 approvals, the actor's approval
     * of each HIGH row is recorded and the row is confirmed by its k-th counted approver. Answers how many rows this
     * request confirmed.
     */
    public Uni<Integer> confirm(Actor actor, List<UUID> ids, Principal who, Channel via) {
        return sessions.run(actor, () -> policies.approvals(actor.tenantId())
                .flatMap(approval -> policies.tiers(actor.tenantId())
                        .flatMap(tiers -> rows.lockWaiting(actor.tenantId(), ids)
                                .flatMap(pending -> confirmLocked(actor, pending, approval, tiers, who, via)))));
    }

    private Uni<Integer> confirmLocked(Actor actor, List<ImportedRow> pending, ApprovalPolicy approval,
            TierPolicy tiers, Principal who, Channel via) {
        List<UUID> direct = new ArrayList<>();
        List<UUID> needApprovals = new ArrayList<>();
        List<Violation> refused = new ArrayList<>();
        // The decision rule first (rows are imported only into their importer's own wallet: the importer owns them).
        List<Violation> notEntitled = pending.stream()
                .filter(row -> DecisionRule.decide(who, Operation.IMPORT_CONFIRM, tier(row.amount, tiers),
                        row.importedBy, row.importedBy, via) == Verdict.DENY)
                .map(row -> new Violation("transaction " + row.id, "not yours to confirm"))
                .toList();
        if (!notEntitled.isEmpty()) {
            throw new ProblemException(ErrorCode.FORBIDDEN, DecisionRule.refusal(who, Operation.IMPORT_CONFIRM,
                    "confirm these imported rows") + " Nothing was confirmed.", notEntitled);
        }
        for (ImportedRow row : pending) {
            Tier tier = tier(row.amount, tiers);
            boolean high = tier == Tier.HIGH;
            if (!SeparationOfDuties.mayApprove(approval, tier, List.of(row.importedBy), actor.userId())) {
                refused.add(new Violation("transaction " + row.id,
                        "you imported it and it is at or above the high-impact threshold"));
            } else if (high && approval.highApprovals() > 1) {
                needApprovals.add(row.id);
            } else {
                direct.add(row.id);
            }
        }
        if (!refused.isEmpty()) {
            throw new ProblemException(ErrorCode.APPROVER_NOT_ALLOWED, "Another person of your tenant must confirm"
                    + " these rows: the tenant's approval policy needs an approver other than the importer for rows"
                    + " at or above the high-impact threshold. Nothing was confirmed; confirm the others without them.",
                    refused);
        }
        return approvals.approve(actor.tenantId(), needApprovals, actor.userId(), actor.channel())
                .flatMap(recorded -> approvals.approvedEnough(actor.tenantId(), needApprovals,
                        approval.highApprovals(), approval.highNeedsOtherApprover()))
                .flatMap(approved -> {
                    direct.addAll(approved);
                    return rows.confirmUnconfirmed(actor.tenantId(), direct, actor.userId());
                });
    }

    /**
     * Rejects those of {@code ids} still waiting for a person: each leaves the books (removed, never confirmed), and
     * the trail names who rejected it. Their importer or an approver of the tenant may; if any of them is neither the
     * actor's import nor the actor an approver, nothing is rejected. Answers how many rows this request rejected.
     */
    public Uni<Integer> reject(Actor actor, List<UUID> ids, Principal who, Channel via) {
        return sessions.run(actor, () -> policies.tiers(actor.tenantId()).flatMap(tiers -> rows
                .lockWaiting(actor.tenantId(), ids).flatMap(pending -> {
                    List<Violation> refused = new ArrayList<>();
                    for (ImportedRow row : pending) {
                        if (DecisionRule.decide(who, Operation.IMPORT_REJECT, tier(row.amount, tiers), row.importedBy,
                                row.importedBy, via) == Verdict.DENY) {
                            refused.add(new Violation("transaction " + row.id,
                                    "imported by someone else; an approver may reject it"));
                        }
                    }
                    if (!refused.isEmpty()) {
                        throw new ProblemException(ErrorCode.FORBIDDEN, DecisionRule.refusal(who,
                                Operation.IMPORT_REJECT, "reject these imported rows") + " Nothing was rejected.",
                                refused);
                    }
                    return rows.rejectUnconfirmed(actor.tenantId(), pending.stream().map(row -> row.id).toList(),
                            actor.userId());
                })));
    }

    /**
     * The tenant's imported rows still waiting for a person that the decision rule lets {@code who} read (their own; an
     * approver's or administrator's all), by date, with their tier now and their approvers.
     */
    public Uni<List<PendingImport>> pending(String tenantId, int limit, Principal who, Channel via) {
        if (DecisionRule.readsNothing(who, via)) {
            return Uni.createFrom().item(List.of());
        }
        String importedBy = DecisionRule.readsWholeTenant(who, via) ? null : who.userId();
        return sessions.read(tenantId, () -> policies.tiers(tenantId)
                .flatMap(tiers -> rows.waiting(tenantId, importedBy, limit)
                        .flatMap(waiting -> approvals
                                .approversOf(tenantId, waiting.stream().map(ImportedRowRepository.Waiting::id).toList())
                                .map(approvers -> waiting.stream()
                                        .map(row -> pendingImport(row, tiers,
                                                approvers.getOrDefault(row.id(), List.of())))
                                        .toList()))));
    }

    private PendingImport pendingImport(ImportedRowRepository.Waiting row, TierPolicy tiers,
            List<String> approvers) {
        return new PendingImport(row.id(), row.walletId(), row.walletName(), row.occurredOn(),
                row.amount().toPlainString(), row.category(), row.description(), row.importedBy(),
                tier(row.amount(), tiers).wireName(), approvers);
    }

    /**
     * The trail of one imported row, oldest first; empty if the tenant has no such imported row or the decision rule
     * does not let {@code who} read it (its importer owns it).
     */
    public Uni<List<ImportHistoryEntry>> history(String tenantId, UUID transactionId, Principal who, Channel via) {
        return sessions.read(tenantId, () -> trail.of(tenantId, transactionId)).map(entries -> entries.stream()
                .filter(entry -> IMPORTED.equals(entry.event()))
                .findFirst()
                .filter(imported -> DecisionRule.decide(who, Operation.READ, Tier.fromWire(imported.tier()),
                        imported.actor(), imported.actor(), via) == Verdict.ALLOW)
                .map(imported -> entries).orElse(List.of()));
    }

    private static final String IMPORTED = "imported";

    /** The imported kind's tier rule for an expense of {@code amount}. */
    private Tier tier(BigDecimal amount, TierPolicy policy) {
        var params = Json.mapper().createObjectNode().put("amount", amount.toPlainString());
        return expense.tierFor(params, policy);
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
