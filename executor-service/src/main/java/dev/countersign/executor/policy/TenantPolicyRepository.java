package dev.countersign.executor.policy;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.api.AgentWritesPolicy;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The tenant's agent-writes switch; a tenant without a row is {@code enabled}. Every change is audited by a trigger.
 */
@ApplicationScoped
public class TenantPolicyRepository {

    public Uni<AgentWritesPolicy> agentWrites(SqlClient sql, String tenantId) {
        return sql
                .preparedQuery("SELECT agent_writes, updated_by, updated_at FROM tenant_policies WHERE tenant_id = $1")
                .execute(Tuple.of(tenantId))
                .map(rows -> {
                    if (rows.size() == 0) {
                        return new AgentWritesPolicy(AgentWritesPolicy.Mode.ENABLED, null, null);
                    }
                    var row = rows.iterator().next();
                    return new AgentWritesPolicy(AgentWritesPolicy.Mode.fromWire(row.getString("agent_writes")),
                            row.getString("updated_by"), row.getOffsetDateTime("updated_at").toInstant());
                });
    }

    public Uni<AgentWritesPolicy> setAgentWrites(SqlClient sql, String tenantId, AgentWritesPolicy.Mode mode,
            String userId) {
        return sql.preparedQuery("""
                INSERT INTO tenant_policies (tenant_id, agent_writes, updated_by) VALUES ($1, $2, $3)
                ON CONFLICT (tenant_id) DO UPDATE SET agent_writes = $2, updated_by = $3, updated_at = now()
                RETURNING agent_writes, updated_by, updated_at""")
                .execute(Tuple.of(tenantId, mode.wireName(), userId))
                .map(rows -> {
                    var row = rows.iterator().next();
                    return new AgentWritesPolicy(AgentWritesPolicy.Mode.fromWire(row.getString("agent_writes")),
                            row.getString("updated_by"), row.getOffsetDateTime("updated_at").toInstant());
                });
    }
}
