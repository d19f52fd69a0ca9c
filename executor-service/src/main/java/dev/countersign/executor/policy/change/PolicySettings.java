package dev.countersign.executor.policy.change;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.api.ApprovalPolicy;
import dev.countersign.contracts.api.AutoApplyBudget;
import dev.countersign.contracts.api.ExternalSendsPolicy;
import dev.countersign.contracts.api.McpAutoApplyPolicy;
import dev.countersign.contracts.api.SecondDevicePolicy;
import dev.countersign.contracts.api.WebhookOriginsPolicy;
import dev.countersign.contracts.catalogue.TierPolicy;
import dev.countersign.executor.policy.PolicySettingsRepository;

/**
 * The tenant's policy settings and, for each, the changes that weaken protection and so need a second administrator
 * (docs/security/authorization.md, "Two persons for loosening"): agent writes towards {@code enabled} (disabled, then
 * staged_only, then enabled), fewer approvals for HIGH or no longer another approver than the requester, a higher
 * high-impact threshold, external sends turned on, any auto-apply bound raised, a kind opted in to apply on arrival
 * when proposed through an MCP client, an origin added to the webhook allow-list. Every other change tightens or keeps
 * protection and applies at once.
 */
public final class PolicySettings {

    public static final PolicySetting<AgentWritesPolicy> AGENT_WRITES = new PolicySetting<>("agent-writes",
            AgentWritesPolicy.class, PolicySettingsRepository::agentWrites,
            (policies, tenant, value, by) -> policies.setAgentWrites(tenant, value.mode(), by),
            (current, proposed) -> openness(proposed.mode()) > openness(current.mode()),
            value -> new AgentWritesPolicy(value.mode(), null, null));

    public static final PolicySetting<ApprovalPolicy> APPROVALS = new PolicySetting<>("approvals",
            ApprovalPolicy.class, PolicySettingsRepository::approvals,
            (policies, tenant, value, by) -> policies.setApprovals(tenant, value, by),
            (current, proposed) -> proposed.highApprovals() < current.highApprovals()
                    || current.highNeedsOtherApprover() && !proposed.highNeedsOtherApprover(),
            value -> value);

    public static final PolicySetting<TierPolicy> TIERS = new PolicySetting<>("tiers", TierPolicy.class,
            PolicySettingsRepository::tiers, (policies, tenant, value, by) -> policies.setTiers(tenant, value, by),
            (current, proposed) -> proposed.highImpactThreshold().compareTo(current.highImpactThreshold()) > 0,
            value -> Map.of("highImpactThreshold", plain(value.highImpactThreshold())));

    public static final PolicySetting<ExternalSendsPolicy> EXTERNAL_SENDS = new PolicySetting<>("external-sends",
            ExternalSendsPolicy.class, PolicySettingsRepository::externalSends,
            (policies, tenant, value, by) -> policies.setExternalSends(tenant, value, by),
            (current, proposed) -> !Boolean.TRUE.equals(current.enabled()) && Boolean.TRUE.equals(proposed.enabled()),
            value -> value);

    public static final PolicySetting<AutoApplyBudget> AUTO_APPLY_BUDGET = new PolicySetting<>("auto-apply-budget",
            AutoApplyBudget.class, PolicySettingsRepository::autoApplyBudget,
            (policies, tenant, value, by) -> policies.setAutoApplyBudget(tenant, value, by),
            (current, proposed) -> proposed.turnCount() > current.turnCount()
                    || proposed.userDayCount() > current.userDayCount()
                    || proposed.tenantDayCount() > current.tenantDayCount()
                    || raised(current.turnAmount(), proposed.turnAmount())
                    || raised(current.userDayAmount(), proposed.userDayAmount())
                    || raised(current.tenantDayAmount(), proposed.tenantDayAmount()),
            value -> Map.of("turnCount", value.turnCount(), "turnAmount", plain(value.turnAmount()),
                    "userDayCount", value.userDayCount(), "userDayAmount", plain(value.userDayAmount()),
                    "tenantDayCount", value.tenantDayCount(), "tenantDayAmount", plain(value.tenantDayAmount())));

    /** Opting a kind in loosens; taking one out tightens. Stored and compared sorted, without repeats. */
    public static final PolicySetting<McpAutoApplyPolicy> MCP_AUTO_APPLY = new PolicySetting<>("mcp-auto-apply",
            McpAutoApplyPolicy.class, PolicySettingsRepository::mcpAutoApply,
            (policies, tenant, value, by) -> policies.setMcpAutoApply(tenant, value, by),
            (current, proposed) -> !current.kinds().containsAll(proposed.kinds()),
            McpAutoApplyPolicy::normalised);

    /** Adding an origin loosens (a new way out); taking one away tightens. Stored and compared normalised. */
    public static final PolicySetting<WebhookOriginsPolicy> WEBHOOK_ORIGINS = new PolicySetting<>("webhook-origins",
            WebhookOriginsPolicy.class, PolicySettingsRepository::webhookOrigins,
            (policies, tenant, value, by) -> policies.setWebhookOrigins(tenant, value, by),
            (current, proposed) -> !current.normalised().origins().containsAll(proposed.normalised().origins()),
            WebhookOriginsPolicy::normalised);

    /**
     * Never loosens: asking more people, or fewer, on a second device changes who is asked, not what counts (the rule
     * and the approval policy decide that). Stored and compared sorted, without repeats.
     */
    public static final PolicySetting<SecondDevicePolicy> SECOND_DEVICE = new PolicySetting<>("second-device",
            SecondDevicePolicy.class, PolicySettingsRepository::secondDevice,
            (policies, tenant, value, by) -> policies.setSecondDevice(tenant, value, by),
            (current, proposed) -> false, SecondDevicePolicy::normalised);

    public static final List<PolicySetting<?>> ALL = List.of(AGENT_WRITES, APPROVALS, TIERS, EXTERNAL_SENDS,
            AUTO_APPLY_BUDGET, MCP_AUTO_APPLY, WEBHOOK_ORIGINS, SECOND_DEVICE);

    private PolicySettings() {
    }

    /** The setting of that name, if any. */
    public static Optional<PolicySetting<?>> named(String name) {
        return ALL.stream().filter(setting -> setting.name().equals(name)).findFirst();
    }

    private static int openness(AgentWritesPolicy.Mode mode) {
        return switch (mode) {
            case DISABLED -> 0;
            case STAGED_ONLY -> 1;
            case ENABLED -> 2;
        };
    }

    /**
     * An amount as text without trailing zeros ("500" for 500.00): what a change stores and compares survives
     * PostgreSQL's jsonb unchanged, whatever scale it was written with.
     */
    private static String plain(BigDecimal amount) {
        return amount.stripTrailingZeros().toPlainString();
    }

    private static boolean raised(BigDecimal current, BigDecimal proposed) {
        return proposed.compareTo(current) > 0;
    }
}
