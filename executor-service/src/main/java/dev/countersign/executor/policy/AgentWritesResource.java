package dev.countersign.executor.policy;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;

/** The caller's tenant's kill switch for agent writes. Reading is open to the tenant; changing it is admin-only. */
@Path("/api/actions/policy/agent-writes")
@Authenticated
public class AgentWritesResource {

    static final String ADMIN = "admin";

    private final TenantPolicyRepository policies;
    private final Pool pool;
    private final CurrentUser user;

    public AgentWritesResource(TenantPolicyRepository policies, Pool pool, CurrentUser user) {
        this.policies = policies;
        this.pool = pool;
        this.user = user;
    }

    @GET
    public Uni<AgentWritesPolicy> get() {
        return policies.agentWrites(pool, user.tenantId());
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<AgentWritesPolicy> set(AgentWritesPolicy request) {
        user.requireGroup(ADMIN);
        if (request == null || request.mode() == null) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "Send {\"mode\": \"enabled\" | \"staged_only\" | \"disabled\"}.");
        }
        return pool.withTransaction(sql -> policies.setAgentWrites(sql, user.tenantId(), request.mode(),
                user.userId()));
    }
}
