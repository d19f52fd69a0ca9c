package dev.countersign.executor.policy;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Groups;
import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.api.ApprovalPolicy;
import dev.countersign.executor.action.TenantTransactions;
import dev.countersign.executor.action.TenantTransactions.Actor;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/**
 * The caller's tenant's policies: the kill switch for agent writes and the separation-of-duties rules for HIGH actions.
 * Reading is open to the tenant; changing is admin-only, and every change is audited by a trigger.
 */
@Path("/api/actions/policy")
@Authenticated
public class TenantPolicyResource {

    private final TenantPolicyRepository policies;
    private final TenantTransactions transactions;
    private final CurrentUser user;

    public TenantPolicyResource(TenantPolicyRepository policies, TenantTransactions transactions, CurrentUser user) {
        this.policies = policies;
        this.transactions = transactions;
        this.user = user;
    }

    @GET
    @Path("/agent-writes")
    public Uni<AgentWritesPolicy> agentWrites() {
        return transactions.read(user.tenantId(), sql -> policies.agentWrites(sql, user.tenantId()));
    }

    @PUT
    @Path("/agent-writes")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<AgentWritesPolicy> setAgentWrites(AgentWritesPolicy request) {
        user.requireGroup(Groups.ADMIN);
        if (request == null || request.mode() == null) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "Send {\"mode\": \"enabled\" | \"staged_only\" | \"disabled\"}.");
        }
        return transactions.run(actingUser(),
                sql -> policies.setAgentWrites(sql, user.tenantId(), request.mode(), user.userId()));
    }

    @GET
    @Path("/approvals")
    public Uni<ApprovalPolicy> approvals() {
        return transactions.read(user.tenantId(), sql -> policies.approvals(sql, user.tenantId()));
    }

    @PUT
    @Path("/approvals")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<ApprovalPolicy> setApprovals(ApprovalPolicy policy) {
        user.requireGroup(Groups.ADMIN);
        if (policy == null || policy.highApprovals() < 1 || policy.highApprovals() > ApprovalPolicy.MAX_APPROVALS) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "Send {\"highApprovals\": 1 to %d, \"highNeedsOtherApprover\": true | false}."
                            .formatted(ApprovalPolicy.MAX_APPROVALS));
        }
        return transactions.run(actingUser(),
                sql -> policies.setApprovals(sql, user.tenantId(), policy, user.userId()));
    }

    private Actor actingUser() {
        return new Actor(user.tenantId(), user.userId(), TenantTransactions.HTTP);
    }
}
