package dev.countersign.executor.gate;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.Tier;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.policy.ApprovalRepository;
import dev.countersign.executor.policy.TenantPolicyRepository;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * The tenant's approval rules for HIGH actions, applied before a confirmation may run: the requester may be refused as
 * approver, and the action runs only once k distinct approvers (each with the token) have confirmed. The caller hands
 * in the action row locked ({@code ActionRepository.lockWithToken}), so two last approvals arriving together cannot
 * both see k - 1.
 * <p>
 * Approvers are verified identities (a bearer token over HTTP, an approver token on the decisions topic); every
 * decision relayed without one counts as the single approver {@link DecisionRequest#UNVERIFIED_APPROVER}, however many
 * user ids it names. Such a decision naming the requester is still refused where another approver is required; one
 * naming someone else counts as that single unverified approver (the integration is trusted to have asked a person
 * other than the requester, once).
 * <p>
 * Limit: every approver uses the same one-time token (the card the requester was shown, or a re-issued one); the rule
 * counts distinct authenticated users of the tenant, not devices or channels.
 */
@ApplicationScoped
public class SeparationOfDuties {

    private final TenantPolicyRepository policies;
    private final ApprovalRepository approvals;

    public SeparationOfDuties(TenantPolicyRepository policies, ApprovalRepository approvals) {
        this.policies = policies;
        this.approvals = approvals;
    }

    /**
     * Null if the confirmation may go ahead now; otherwise what it came to instead.
     *
     * @param action
     *            the action, locked for this transaction; null if the id and token matched nothing
     */
    public Uni<DecisionOutcome> check(SqlClient sql, DecisionRequest request, ActionRow action) {
        if (action == null || action.tier() != Tier.HIGH || action.status() != ActionStatus.PROPOSED) {
            return Uni.createFrom().nullItem();
        }
        return policies.approvals(sql, request.tenantId()).flatMap(policy -> {
            if (policy.isDefault()) {
                return Uni.createFrom().nullItem();
            }
            if (policy.highNeedsOtherApprover() && request.userId().equals(action.requestedBy())) {
                return Uni.createFrom().item(new DecisionOutcome.ApproverNotAllowed(action));
            }
            // k-of-n counts verified identities: an unverified decision counts as the one unverified approver.
            return approvals.approve(sql, action.id(), action.tenantId(), request.approver(), request.channel())
                    .flatMap(ignored -> approvals.approvers(sql, action.id(), action.tenantId()))
                    .map(approvers -> {
                        List<String> counted = policy.highNeedsOtherApprover()
                                ? approvers.stream().filter(a -> !a.equals(action.requestedBy())).toList()
                                : approvers;
                        return counted.size() >= policy.highApprovals()
                                ? null
                                : new DecisionOutcome.AwaitingApprovals(action, counted,
                                        policy.highApprovals());
                    });
        });
    }
}
