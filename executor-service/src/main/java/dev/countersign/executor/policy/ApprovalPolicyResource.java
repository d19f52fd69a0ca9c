package dev.countersign.executor.policy;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ApprovalPolicy;
import dev.countersign.executor.action.TenantTransactions;
import dev.countersign.executor.action.TenantTransactions.Actor;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/** The caller's tenant's separation-of-duties rules for HIGH actions. Reading is open; changing is admin-only. */
@Path("/api/actions/policy/approvals")
@Authenticated
public class ApprovalPolicyResource {

    private final ApprovalRepository approvals;
    private final TenantTransactions transactions;
    private final CurrentUser user;

    public ApprovalPolicyResource(ApprovalRepository approvals, TenantTransactions transactions, CurrentUser user) {
        this.approvals = approvals;
        this.transactions = transactions;
        this.user = user;
    }

    @GET
    public Uni<ApprovalPolicy> get() {
        return transactions.read(user.tenantId(), sql -> approvals.policy(sql, user.tenantId()));
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<ApprovalPolicy> set(ApprovalPolicy policy) {
        user.requireGroup(AgentWritesResource.ADMIN);
        if (policy == null || policy.highApprovals() < 1 || policy.highApprovals() > ApprovalPolicy.MAX_APPROVALS) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "Send {\"highApprovals\": 1 to %d, \"highNeedsOtherApprover\": true | false}."
                            .formatted(ApprovalPolicy.MAX_APPROVALS));
        }
        return transactions.run(new Actor(user.tenantId(), user.userId(), TenantTransactions.HTTP),
                sql -> approvals.setPolicy(sql, user.tenantId(), policy, user.userId()));
    }
}
