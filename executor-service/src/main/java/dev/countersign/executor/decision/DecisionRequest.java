package dev.countersign.executor.decision;

import java.util.UUID;

import dev.countersign.executor.access.Channel;
import dev.countersign.executor.access.Principal;

/**
 * A person's confirm or cancel, from HTTP or from the decisions topic.
 *
 * @param authority
 *            what entitles it: the signed-in person (HTTP) or the confirm token (the decisions topic)
 * @param channel
 *            recorded in the action's history ({@code http}, or the integration's channel)
 * @param eventId
 *            the decisions-topic event id, so a redelivered event decides nothing twice; null over HTTP
 * @param turnId
 *            the conversation turn that relayed a chat decision; null otherwise
 * @param expectedParamsHash
 *            the parameters hash the person was shown: required to confirm, null on a cancel
 * @param decider
 *            the verified person deciding (a bearer token or the decision page over HTTP, an approver token on the
 *            topic), whom the decision rule judges; null when {@code userId} is only what an integration asserts
 * @param via
 *            the channel, as the decision rule names it
 * @param approverToken
 *            the approver token a topic decision carried, which it uses up ({@link SingleUseApprovals}); null otherwise
 */
public record DecisionRequest(UUID actionId, String tenantId, String userId, DecisionAuthority authority,
        String channel, UUID eventId, UUID turnId, String expectedParamsHash, Principal decider, Channel via,
        ApproverToken approverToken) {

    /** A verified approver token, by its {@code jti}, and when it expires. */
    public record ApproverToken(String tokenId, java.time.Instant expiresAt) {
    }

    /** The conversation channel: a decision relayed from the chat. */
    public static final String CHAT = "chat";
    /** A decision by the signed-in person, over HTTP or the decision page. */
    public static DecisionRequest overHttp(UUID actionId, String tenantId, Principal decider, Channel via) {
        return new DecisionRequest(actionId, tenantId, decider.userId(), new DecisionAuthority.Person(),
                dev.countersign.executor.db.TenantTransactions.HTTP, null, null, null, decider, via, null);
    }

    /** A second-device answer, as the history records its channel. */
    public static final String SECOND_DEVICE = Channel.CIBA.tableName();

    /**
     * A person's answer on their second device (OpenID CIBA) to the request {@code requestId} the executor started for
     * this action and parameters hash: {@code decider} as the approval's token names them (for a denial, which carries
     * no token, as the executor last saw them), {@code token} the approval token it spends (none for a denial). The
     * request's id is the decision's event id, so a request decides once, even if its answer is taken twice.
     */
    public static DecisionRequest bySecondDevice(UUID actionId, String tenantId, Principal decider, UUID requestId,
            String paramsHash, ApproverToken token) {
        return new DecisionRequest(actionId, tenantId, decider.userId(), new DecisionAuthority.Person(),
                SECOND_DEVICE, requestId, null, paramsHash, decider, Channel.CIBA, token);
    }

    /** Whether {@code userId} is verified: a person this service authenticated, not an integration's assertion. */
    public boolean verifiedUser() {
        return decider != null;
    }

    /** The same request, naming the parameters hash the person was shown (null: not named). */
    public DecisionRequest expecting(String paramsHash) {
        return new DecisionRequest(actionId, tenantId, userId, authority, channel, eventId, turnId, paramsHash,
                decider, via, approverToken);
    }

    /** Who this approval counts as for k-of-n: the verified user, or {@link Principal#UNVERIFIED_INTEGRATION}. */
    public String approver() {
        return verifiedUser() ? userId : Principal.UNVERIFIED_INTEGRATION;
    }

    /**
     * The same-turn rule, for integrations that relay decisions typed in a chat of their own (channel {@code chat} on
     * the decisions topic): a decision relayed in the very turn that proposed the action is refused. It relies on the
     * turn the integration declares, so it is a guard against a careless relay, not a boundary. The boundary against
     * agent-service is elsewhere: the agent holds no confirm token (the executor mints a person's), no
     * executor-audience token and no session on the executor's origin, so it cannot decide in any turn.
     */
    public boolean isSameTurnAs(UUID proposingTurn) {
        return CHAT.equals(channel) && turnId != null && turnId.equals(proposingTurn);
    }

    @Override
    public String toString() {
        return "DecisionRequest[actionId=%s, tenantId=%s, userId=%s, channel=%s, authority=%s]"
                .formatted(actionId, tenantId, userId, channel, authority);
    }
}
