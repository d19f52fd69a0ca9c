package dev.countersign.executor.members;

import java.util.List;

import dev.countersign.contracts.api.ApprovalPolicy;
import dev.countersign.executor.access.Channel;
import dev.countersign.executor.access.DecisionRule;
import dev.countersign.executor.access.Operation;
import dev.countersign.executor.access.Relation;
import dev.countersign.executor.access.Verdict;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.decision.SeparationOfDuties;

/**
 * Who may decide an action, known before any of them signs in: the members whose confirmation would count, as the
 * decision rule ({@link DecisionRule}, the decision page's channel) and the tenant's approval policy
 * ({@link SeparationOfDuties#mayApprove}) say, with the groups each member had when last seen. The rules are theirs;
 * this class only asks them about every member.
 * <p>
 * Limit: as fresh as the members' last sign-ins ({@code tenant_members}); a person the rule would let decide but who
 * never signed in at the executor is not among them. The decision itself checks the live token again.
 */
public final class Deciders {

    private Deciders() {
    }

    /** Those of {@code members} whose confirmation of {@code action} would count under {@code policy}. */
    public static List<Member> of(ActionRow action, ApprovalPolicy policy, List<Member> members) {
        return members.stream()
                .filter(member -> member.tenantId().equals(action.tenantId()))
                .filter(member -> DecisionRule.decide(Operation.CONFIRM, action.tier(), Channel.PAGE,
                        Relation.of(member.userId(), action.requesterFor(member.userId()), action.targetOwner()),
                        member.approver(),
                        member.admin(), false) == Verdict.ALLOW)
                .filter(member -> SeparationOfDuties.mayApprove(policy, action.tier(), action.requesters(),
                        member.userId()))
                .toList();
    }
}
