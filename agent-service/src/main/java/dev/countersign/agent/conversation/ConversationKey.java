package dev.countersign.agent.conversation;

import dev.countersign.agent.evidence.Person;

/** A conversation belongs to one user of one tenant: the same id used by another user is another conversation. */
public record ConversationKey(String tenantId, String userId, String conversationId) {

    /** The person whose conversation it is: reads of it are theirs. */
    public Person person() {
        return new Person(tenantId, userId);
    }
}
