package dev.countersign.executor.decision;

import java.util.Collection;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.Requesters;
import dev.countersign.contracts.Tier;
import dev.countersign.contracts.api.ApprovalPolicy;
import dev.countersign.executor.access.Principal;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.DecisionOutcome;
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
 * decision relayed without one is recorded as the single approver {@link Principal#UNVERIFIED_INTEGRATION}, however
 * many user ids it names. Where k > 1 approvals are needed, k-of-n counts verified identities only: the unverified
 * approval is kept in the trail and never counted (so one person cannot count twice, once verified and once relayed).
 * Where one approval by another person is needed, an unverified decision naming someone other than the requester
 * suffices (the integration is trusted to have asked a person, once); one naming the requester is refused.
 * <p>
 * An action an integration proposed ({@code service:} requester) is confirmed only by a verified person: the
 * integration wrote the proposal, so it holds its token, and its own unverified decision would otherwise be no person
 * at all.
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
     * Whether the tenant's {@code policy} lets {@code approver}'s confirmation of an action of {@code tier}
     * {@code requesters} asked for count: not a requester's own HIGH action where the policy asks for another person
     * (for an edit, the requesters of the actions it replaced count as requesters too: an edit is no approval). After
     * the decision rule, which says who may confirm at all.
     */
    public static boolean mayApprove(ApprovalPolicy policy, Tier tier, Collection<String> requesters,
            String approver) {
        return tier != Tier.HIGH || !policy.highNeedsOtherApprover() || !requesters.contains(approver);
    }

    /**
     * Null if the confirmation may go ahead now; otherwise what it came to instead.
     *
     * @param action
     *            the action, locked for this transaction; null if the id and token matched nothing
     */
    public Uni<DecisionOutcome> check(SqlClient sql, DecisionRequest request, ActionRow action) {
        if (action != null && action.status() == ActionStatus.PROPOSED && Requesters.isService(action.requestedBy())
                && !request.verifiedUser()) {
            return Uni.createFrom().item(new DecisionOutcome.ApproverNotAllowed(action));
        }
        if (action == null || action.tier() != Tier.HIGH || action.status() != ActionStatus.PROPOSED) {
            return Uni.createFrom().nullItem();
        }
        return policies.approvals(sql, request.tenantId()).flatMap(policy -> {
            if (policy.isDefault()) {
                return Uni.createFrom().nullItem();
            }
            if (!mayApprove(policy, action.tier(), action.requesters(), request.userId())) {
                return Uni.createFrom().item(new DecisionOutcome.ApproverNotAllowed(action));
            }
            // k-of-n (k > 1) counts verified identities only: an unverified decision is recorded, never counted.
            return approvals.approve(sql, action.id(), action.tenantId(), request.approver(), request.channel())
                    .flatMap(ignored -> approvals.approvers(sql, action.id(), action.tenantId()))
                    .map(approvers -> {
                        List<String> counted = approvers.stream()
                                .filter(a -> mayApprove(policy, action.tier(), action.requesters(), a))
                                .filter(a -> policy.highApprovals() == 1
                                        || !a.equals(Principal.UNVERIFIED_INTEGRATION))
                                .toList();
                        return counted.size() >= policy.highApprovals()
                                ? null
                                : new DecisionOutcome.AwaitingApprovals(action, counted,
                                        policy.highApprovals());
                    });
        });
    }
}
