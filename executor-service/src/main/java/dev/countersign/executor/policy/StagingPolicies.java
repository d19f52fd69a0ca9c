package dev.countersign.executor.policy;

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
 */
public record StagingPolicies(AgentWritesPolicy.Mode agentWrites, TierPolicy tiers, boolean externalSends) {
}
