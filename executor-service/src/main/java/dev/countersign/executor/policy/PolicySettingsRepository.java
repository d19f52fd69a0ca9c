package dev.countersign.executor.policy;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.api.ApprovalPolicy;
import dev.countersign.contracts.api.AutoApplyBudget;
import dev.countersign.contracts.api.ExternalSendsPolicy;
import dev.countersign.contracts.api.McpAutoApplyPolicy;
import dev.countersign.contracts.api.SecondDevicePolicy;
import dev.countersign.contracts.api.WebhookOriginsPolicy;
import dev.countersign.contracts.catalogue.TierPolicy;
import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Parameters;
import io.smallrye.mutiny.Uni;

/**
 * The tenant's policies as an administrator reads and sets them, in the caller's tenant session. Each change is one
 * upsert ({@code insert ... on conflict do update}, in HQL), so two administrators setting different policies of a
 * tenant that has no row yet both land; no read-modify-write. The staging and confirm paths read the same rows through
 * {@link TenantPolicyRepository} (native SQL); both answer the same defaults, the deployment's for agent writes from
 * {@link TenantPolicyRepository#agentWritesDefault()}.
 */
@ApplicationScoped
public class PolicySettingsRepository implements PanacheRepositoryBase<TenantPolicy, String> {

    private static final String UPSERT = "insert into TenantPolicy (tenantId, updatedBy, %s) values (:tenant, :by, %s)"
            + " on conflict (tenantId) do update set updatedBy = excluded.updatedBy, updatedAt = offset datetime, %s";

    private final TenantPolicyRepository defaults;
    private final AutoApplyBudgets budgets;

    public PolicySettingsRepository(TenantPolicyRepository defaults, AutoApplyBudgets budgets) {
        this.defaults = defaults;
        this.budgets = budgets;
    }

    public Uni<AgentWritesPolicy> agentWrites(String tenantId) {
        return findById(tenantId).map(policy -> policy == null || policy.agentWrites == null
                ? new AgentWritesPolicy(defaults.agentWritesDefault(), null, null)
                : new AgentWritesPolicy(AgentWritesPolicy.Mode.fromWire(policy.agentWrites), policy.updatedBy,
                        policy.updatedAt.toInstant()));
    }

    public Uni<TierPolicy> tiers(String tenantId) {
        return findById(tenantId).map(policy -> policy == null || policy.highImpactThreshold == null
                ? TierPolicy.DEFAULT
                : new TierPolicy(policy.highImpactThreshold));
    }

    public Uni<ApprovalPolicy> approvals(String tenantId) {
        return findById(tenantId).map(policy -> policy == null
                ? ApprovalPolicy.DEFAULT
                : new ApprovalPolicy(policy.highApprovals, policy.highNeedsOtherApprover));
    }

    public Uni<ExternalSendsPolicy> externalSends(String tenantId) {
        return findById(tenantId).map(policy -> new ExternalSendsPolicy(
                policy == null || policy.externalSends == null || "enabled".equals(policy.externalSends)));
    }

    /** The kinds whose proposals through an MCP client may apply on arrival; none where none was set. */
    public Uni<McpAutoApplyPolicy> mcpAutoApply(String tenantId) {
        return findById(tenantId).map(policy -> new McpAutoApplyPolicy(
                policy == null || policy.mcpAutoApplyKinds == null ? List.of() : List.of(policy.mcpAutoApplyKinds)));
    }

    /** Stores the kinds sorted and without repeats, so a change compares by what it means. */
    public Uni<McpAutoApplyPolicy> setMcpAutoApply(String tenantId, McpAutoApplyPolicy policy, String userId) {
        McpAutoApplyPolicy stored = policy.normalised();
        return upsert(tenantId, userId, Parameters.with("mcpAutoApplyKinds", stored.kinds().toArray(String[]::new)))
                .replaceWith(stored);
    }

    /** The kinds below HIGH whose proposals go to second devices too; none where none was set. */
    public Uni<SecondDevicePolicy> secondDevice(String tenantId) {
        return findById(tenantId).map(policy -> new SecondDevicePolicy(
                policy == null || policy.secondDeviceKinds == null ? List.of() : List.of(policy.secondDeviceKinds)));
    }

    /** Stores the kinds sorted and without repeats, so a change compares by what it means. */
    public Uni<SecondDevicePolicy> setSecondDevice(String tenantId, SecondDevicePolicy policy, String userId) {
        SecondDevicePolicy stored = policy.normalised();
        return upsert(tenantId, userId, Parameters.with("secondDeviceKinds", stored.kinds().toArray(String[]::new)))
                .replaceWith(stored);
    }

    /** The origins webhook notifications may go to; none where none was set. */
    public Uni<WebhookOriginsPolicy> webhookOrigins(String tenantId) {
        return findById(tenantId).map(policy -> new WebhookOriginsPolicy(
                policy == null || policy.webhookOrigins == null ? List.of() : List.of(policy.webhookOrigins)));
    }

    /** Stores the origins in lower case, sorted and without repeats, so a change compares by what it means. */
    public Uni<WebhookOriginsPolicy> setWebhookOrigins(String tenantId, WebhookOriginsPolicy policy, String userId) {
        WebhookOriginsPolicy stored = policy.normalised();
        return upsert(tenantId, userId, Parameters.with("webhookOrigins", stored.origins().toArray(String[]::new)))
                .replaceWith(stored);
    }

    /** The auto-apply budget; the deployment's ({@link AutoApplyBudgets#defaults()}) where none was set. */
    public Uni<AutoApplyBudget> autoApplyBudget(String tenantId) {
        return findById(tenantId).map(policy -> policy == null || policy.autoApplyTurnCount == null
                ? budgets.defaults()
                : new AutoApplyBudget(policy.autoApplyTurnCount, policy.autoApplyTurnAmount,
                        policy.autoApplyUserDayCount, policy.autoApplyUserDayAmount, policy.autoApplyTenantDayCount,
                        policy.autoApplyTenantDayAmount));
    }

    /** Sets all six bounds in one statement (the table refuses a partial budget). */
    public Uni<AutoApplyBudget> setAutoApplyBudget(String tenantId, AutoApplyBudget budget, String userId) {
        return upsert(tenantId, userId, Parameters.with("autoApplyTurnCount", budget.turnCount())
                .and("autoApplyTurnAmount", budget.turnAmount()).and("autoApplyUserDayCount", budget.userDayCount())
                .and("autoApplyUserDayAmount", budget.userDayAmount())
                .and("autoApplyTenantDayCount", budget.tenantDayCount())
                .and("autoApplyTenantDayAmount", budget.tenantDayAmount())).replaceWith(budget);
    }

    /** Sets agent writes; answers the policy as stored (who set it, when). */
    public Uni<AgentWritesPolicy> setAgentWrites(String tenantId, AgentWritesPolicy.Mode mode, String userId) {
        return upsert(tenantId, userId, Parameters.with("agentWrites", mode.wireName()))
                .flatMap(ignored -> storedAgentWrites(tenantId));
    }

    public Uni<TierPolicy> setTiers(String tenantId, TierPolicy policy, String userId) {
        return upsert(tenantId, userId, Parameters.with("highImpactThreshold", policy.highImpactThreshold()))
                .replaceWith(policy);
    }

    public Uni<ExternalSendsPolicy> setExternalSends(String tenantId, ExternalSendsPolicy policy, String userId) {
        return upsert(tenantId, userId,
                Parameters.with("externalSends", Boolean.TRUE.equals(policy.enabled()) ? "enabled" : "disabled"))
                .replaceWith(policy);
    }

    public Uni<ApprovalPolicy> setApprovals(String tenantId, ApprovalPolicy policy, String userId) {
        return upsert(tenantId, userId, Parameters.with("highApprovals", policy.highApprovals())
                .and("highNeedsOtherApprover", policy.highNeedsOtherApprover())).replaceWith(policy);
    }

    /** One statement: inserts the tenant's row with {@code values} or sets them on the existing one. */
    private Uni<Integer> upsert(String tenantId, String userId, Parameters values) {
        var names = values.map().keySet().stream().toList();
        String columns = String.join(", ", names);
        String parameters = String.join(", ", names.stream().map(name -> ":" + name).toList());
        String updates = String.join(", ", names.stream().map(name -> name + " = excluded." + name).toList());
        return getSession().flatMap(session -> {
            var upsert = session.createMutationQuery(UPSERT.formatted(columns, parameters, updates))
                    .setParameter("tenant", tenantId).setParameter("by", userId);
            values.map().forEach(upsert::setParameter);
            return upsert.executeUpdate();
        });
    }

    /** The row as the database holds it now (the session's copy, if any, predates the upsert). */
    private Uni<AgentWritesPolicy> storedAgentWrites(String tenantId) {
        return getSession().flatMap(session -> session.createSelectionQuery(
                "select agentWrites, updatedBy, updatedAt from TenantPolicy where tenantId = ?1", Object[].class)
                .setParameter(1, tenantId).getSingleResult())
                .map(row -> new AgentWritesPolicy(AgentWritesPolicy.Mode.fromWire((String) row[0]), (String) row[1],
                        ((java.time.OffsetDateTime) row[2]).toInstant()));
    }
}
