package dev.countersign.executor.gate;

import java.util.UUID;

/**
 * A person's confirm or cancel, from HTTP or from the decisions topic.
 *
 * @param channel
 *            recorded in the action's history ({@code http}, or the integration's channel)
 * @param eventId
 *            the decisions-topic event id, so a redelivered event decides nothing twice; null over HTTP
 * @param turnId
 *            the conversation turn that relayed a chat decision; null otherwise
 * @param expectedParamsHash
 *            the parameters hash the person was shown: required to confirm, null on a cancel
 * @param verifiedUser
 *            whether {@code userId} is verified (a bearer token over HTTP, an approver token on the topic); if not, it
 *            is only what an integration asserts
 */
public record DecisionRequest(UUID actionId, String tenantId, String userId, String rawToken, String channel,
        UUID eventId, UUID turnId, String expectedParamsHash, boolean verifiedUser) {

    /** The conversation channel: a decision relayed from the chat. */
    public static final String CHAT = "chat";
    /**
     * The one approver every decision without a verified approver identity counts as, whatever user id it names: the
     * consumer cannot see which Kafka principal wrote a record, so all unverified integrations together are one.
     */
    public static final String UNVERIFIED_APPROVER = "integration:unverified";

    public static DecisionRequest overHttp(UUID actionId, String tenantId, String userId, String rawToken) {
        return new DecisionRequest(actionId, tenantId, userId, rawToken,
                dev.countersign.executor.action.TenantTransactions.HTTP, null, null, null, true);
    }

    /** The same request, naming the parameters hash the person was shown (null: not named). */
    public DecisionRequest expecting(String paramsHash) {
        return new DecisionRequest(actionId, tenantId, userId, rawToken, channel, eventId, turnId, paramsHash,
                verifiedUser);
    }

    /** Who this approval counts as for k-of-n: the verified user, or {@link #UNVERIFIED_APPROVER}. */
    public String approver() {
        return verifiedUser ? userId : UNVERIFIED_APPROVER;
    }

    /**
     * The same-turn rule: a decision relayed from the chat in the very turn that proposed the action is refused, so the
     * agent cannot propose and confirm in one breath. What it does not prove: a decision relayed in a later turn is not
     * proof that a person decided (the model could relay a "yes" nobody typed); the token is what the person holds, and
     * the chat channel should only relay what the UI's confirm button sent.
     */
    public boolean isSameTurnAs(UUID proposingTurn) {
        return CHAT.equals(channel) && turnId != null && turnId.equals(proposingTurn);
    }

    @Override
    public String toString() {
        return "DecisionRequest[actionId=%s, tenantId=%s, userId=%s, channel=%s, rawToken=<redacted>]"
                .formatted(actionId, tenantId, userId, channel);
    }
}
