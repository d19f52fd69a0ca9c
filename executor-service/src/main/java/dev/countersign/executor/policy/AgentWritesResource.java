package dev.countersign.executor.policy;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.executor.action.TenantTransactions;
import dev.countersign.executor.action.TenantTransactions.Actor;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/** The caller's tenant's kill switch for agent writes. Reading is open to the tenant; changing it is admin-only. */
@Path("/api/actions/policy/agent-writes")
@Authenticated
public class AgentWritesResource {

    static final String ADMIN = "admin";

    private final TenantPolicyRepository policies;
    private final TenantTransactions transactions;
    private final CurrentUser user;

    public AgentWritesResource(TenantPolicyRepository policies, TenantTransactions transactions, CurrentUser user) {
        this.policies = policies;
        this.transactions = transactions;
        this.user = user;
    }

    @GET
    public Uni<AgentWritesPolicy> get() {
        return transactions.read(user.tenantId(), sql -> policies.agentWrites(sql, user.tenantId()));
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<AgentWritesPolicy> set(AgentWritesPolicy request) {
        user.requireGroup(ADMIN);
        if (request == null || request.mode() == null) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "Send {\"mode\": \"enabled\" | \"staged_only\" | \"disabled\"}.");
        }
        return transactions.run(new Actor(user.tenantId(), user.userId(), TenantTransactions.HTTP),
                sql -> policies.setAgentWrites(sql, user.tenantId(), request.mode(), user.userId()));
    }
}
