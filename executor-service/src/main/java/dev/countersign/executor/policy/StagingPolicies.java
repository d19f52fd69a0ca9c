package dev.countersign.executor.policy;

import java.util.Set;

import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.catalogue.TierPolicy;

/**
 * The tenant's policies a proposal is staged under, read together ({@link TenantPolicyRepository#forStaging}).
 *
 * @param agentWrites
 *            whether the agent's proposals are refused, staged only, or may apply on arrival
 * @param tiers
 *            the thresholds the tier rules read
 * @param externalSends
 *            whether actions that reach outside (e-mail, tickets) may be staged
 * @param mcpAutoApplyKinds
 *            the kinds whose proposals through an MCP client may apply on arrival (none by default)
 */
public record StagingPolicies(AgentWritesPolicy.Mode agentWrites, TierPolicy tiers, boolean externalSends,
        Set<String> mcpAutoApplyKinds) {

    /** Whether a proposal of {@code kind} through an MCP client may apply on arrival, as a clean one of the chat. */
    public boolean mcpMayApply(String kind) {
        return mcpAutoApplyKinds.contains(kind);
    }
}
