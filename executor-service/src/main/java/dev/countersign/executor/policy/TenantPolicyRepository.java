package dev.countersign.executor.policy;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.api.ApprovalPolicy;
import dev.countersign.contracts.api.ExternalSendsPolicy;
import dev.countersign.contracts.catalogue.TierPolicy;
import dev.countersign.executor.action.ActionsConfig;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The tenant's policies as the staging and confirm paths read them (native SQL in their transaction); an administrator
 * reads and sets them through {@link PolicySettingsRepository}. One row per tenant: the agent-writes switch, the
 * approval rules for HIGH actions, the high-impact threshold and the external-sends switch. What an administrator never
 * set has the defaults (the deployment's agent writes; one approval by anyone; 500.00; external sends enabled). Every
 * change is audited by a trigger.
 */
@ApplicationScoped
@Startup // the deployment's default for agent writes is parsed at start: a typo stops the start, not a proposal
public class TenantPolicyRepository {

    private final AgentWritesPolicy.Mode agentWritesDefault;

    public TenantPolicyRepository(ActionsConfig config) {
        this.agentWritesDefault = AgentWritesPolicy.Mode.fromWire(config.agentWritesDefault());
    }

    /**
     * The deployment's agent writes, for a tenant whose administrator never set them (ACTIONS_AGENT_WRITES_DEFAULT).
     */
    public AgentWritesPolicy.Mode agentWritesDefault() {
        return agentWritesDefault;
    }

    /** Whether actions the agent proposed may reach outside (e-mail, tickets); enabled where no one switched it off. */
    public Uni<ExternalSendsPolicy> externalSends(SqlClient sql, String tenantId) {
        return sql.preparedQuery("SELECT external_sends FROM tenant_policies WHERE tenant_id = $1"
                + " AND external_sends IS NOT NULL")
                .execute(Tuple.of(tenantId))
                .map(rows -> externalSends(rows.size() == 0 ? null : rows.iterator().next().getString(0)));
    }

    /** The kinds below HIGH whose proposals go to second devices too; none where none was set. */
    public Uni<List<String>> secondDeviceKinds(SqlClient sql, String tenantId) {
        return sql.preparedQuery("SELECT second_device_kinds FROM tenant_policies WHERE tenant_id = $1")
                .execute(Tuple.of(tenantId))
                .map(rows -> {
                    String[] kinds = rows.size() == 0 ? null : rows.iterator().next().getArrayOfStrings(0);
                    return kinds == null ? List.of() : List.of(kinds);
                });
    }

    /** The origins the tenant's webhook notifications may go to (lower case); none where none was set. */
    public Uni<List<String>> webhookOrigins(SqlClient sql, String tenantId) {
        return sql.preparedQuery("SELECT webhook_origins FROM tenant_policies WHERE tenant_id = $1")
                .execute(Tuple.of(tenantId))
                .map(rows -> {
                    String[] origins = rows.size() == 0 ? null : rows.iterator().next().getArrayOfStrings(0);
                    return origins == null ? List.of() : List.of(origins);
                });
    }

    /**
     * What staging a proposal reads of the tenant's policies, in one query: the agent-writes switch, the tier
     * thresholds, the external-sends switch and the kinds MCP proposals may apply, each with its default as an
     * administrator who never set it gets.
     */
    public Uni<StagingPolicies> forStaging(SqlClient sql, String tenantId) {
        return sql.preparedQuery("SELECT agent_writes, high_impact_threshold, external_sends, mcp_auto_apply_kinds"
                + " FROM tenant_policies WHERE tenant_id = $1")
                .execute(Tuple.of(tenantId))
                .map(rows -> {
                    Row row = rows.size() == 0 ? null : rows.iterator().next();
                    String[] mcpKinds = row == null ? null : row.getArrayOfStrings("mcp_auto_apply_kinds");
                    return new StagingPolicies(agentWrites(row == null ? null : row.getString("agent_writes")),
                            tiers(row == null ? null : row.getBigDecimal("high_impact_threshold")),
                            externalSends(row == null ? null : row.getString("external_sends")).enabled(),
                            mcpKinds == null ? Set.of() : Set.copyOf(Arrays.asList(mcpKinds)));
                });
    }

    /** The stored agent writes; the deployment's default where none is stored. */
    private AgentWritesPolicy.Mode agentWrites(String stored) {
        return stored == null ? agentWritesDefault : AgentWritesPolicy.Mode.fromWire(stored);
    }

    /** The thresholds from the stored one; the defaults where none is stored. */
    private static TierPolicy tiers(java.math.BigDecimal highImpactThreshold) {
        return highImpactThreshold == null ? TierPolicy.DEFAULT : new TierPolicy(highImpactThreshold);
    }

    /** Enabled unless an administrator stored anything but {@code enabled}. */
    private static ExternalSendsPolicy externalSends(String stored) {
        return new ExternalSendsPolicy(stored == null || "enabled".equals(stored));
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

}
