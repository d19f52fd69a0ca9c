package dev.countersign.agent.evidence;

/**
 * The signed-in person a read is for: the database shows the agent that person's tenant, and of its per-person rows
 * (actions, conversations, training plans) that person's own, under the reader grant minted from their token
 * ({@link ReaderGrants}).
 */
public record Person(String tenantId, String userId) {
}
