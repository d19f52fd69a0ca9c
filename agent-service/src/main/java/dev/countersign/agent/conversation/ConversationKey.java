package dev.countersign.agent.conversation;

/** A conversation belongs to one user of one tenant: the same id used by another user is another conversation. */
public record ConversationKey(String tenantId, String userId, String conversationId) {
}
