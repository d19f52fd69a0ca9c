package dev.countersign.executor.policy;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.api.ApprovalPolicy;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The tenant's policies, one row per tenant: the agent-writes switch and the approval rules for HIGH actions. A tenant
 * without a row has the defaults ({@code enabled}; one approval by anyone). Every change is audited by a trigger.
 */
@ApplicationScoped
public class TenantPolicyRepository {

    public Uni<AgentWritesPolicy> agentWrites(SqlClient sql, String tenantId) {
        return sql
                .preparedQuery("SELECT agent_writes, updated_by, updated_at FROM tenant_policies WHERE tenant_id = $1")
                .execute(Tuple.of(tenantId))
                .map(rows -> rows.size() == 0
                        ? new AgentWritesPolicy(AgentWritesPolicy.Mode.ENABLED, null, null)
                        : agentWrites(rows.iterator().next()));
    }

    public Uni<AgentWritesPolicy> setAgentWrites(SqlClient sql, String tenantId, AgentWritesPolicy.Mode mode,
            String userId) {
        return sql.preparedQuery("""
                INSERT INTO tenant_policies (tenant_id, agent_writes, updated_by) VALUES ($1, $2, $3)
                ON CONFLICT (tenant_id) DO UPDATE SET agent_writes = $2, updated_by = $3, updated_at = now()
                RETURNING agent_writes, updated_by, updated_at""")
                .execute(Tuple.of(tenantId, mode.wireName(), userId))
                .map(rows -> agentWrites(rows.iterator().next()));
    }

    private static AgentWritesPolicy agentWrites(Row row) {
        return new AgentWritesPolicy(AgentWritesPolicy.Mode.fromWire(row.getString("agent_writes")),
                row.getString("updated_by"), row.getOffsetDateTime("updated_at").toInstant());
    }

    /** The approval rules for HIGH actions. */
    public Uni<ApprovalPolicy> approvals(SqlClient sql, String tenantId) {
        return sql.preparedQuery("SELECT high_approvals, high_needs_other_approver FROM tenant_policies"
                + " WHERE tenant_id = $1")
                .execute(Tuple.of(tenantId))
                .map(rows -> rows.size() == 0
                        ? ApprovalPolicy.DEFAULT
                        : new ApprovalPolicy(rows.iterator().next().getInteger("high_approvals"),
                                rows.iterator().next().getBoolean("high_needs_other_approver")));
    }

    public Uni<ApprovalPolicy> setApprovals(SqlClient sql, String tenantId, ApprovalPolicy policy, String userId) {
        return sql.preparedQuery("""
                INSERT INTO tenant_policies (tenant_id, updated_by, high_approvals, high_needs_other_approver)
                VALUES ($1, $2, $3, $4)
                ON CONFLICT (tenant_id) DO UPDATE SET updated_by = $2, updated_at = now(), high_approvals = $3,
                                                      high_needs_other_approver = $4""")
                .execute(Tuple.of(tenantId, userId, policy.highApprovals(), policy.highNeedsOtherApprover()))
                .replaceWith(policy);
    }
}
