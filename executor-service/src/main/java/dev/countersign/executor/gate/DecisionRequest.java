package dev.countersign.executor.gate;

import java.util.UUID;

/**
 * A person's confirm or cancel, from HTTP or from the decisions topic.
 *
 * @param channel
 *            recorded in the action's history ({@code http}, or the integration's channel)
 * @param eventId
 *            the decisions-topic event id, so a redelivered event decides nothing twice; null over HTTP
 */
public record DecisionRequest(UUID actionId, String tenantId, String userId, String rawToken, String channel,
        UUID eventId) {

    public static DecisionRequest overHttp(UUID actionId, String tenantId, String userId, String rawToken) {
        return new DecisionRequest(actionId, tenantId, userId, rawToken,
                dev.countersign.executor.action.AuditContext.HTTP,
                null);
    }

    @Override
    public String toString() {
        return "DecisionRequest[actionId=%s, tenantId=%s, userId=%s, channel=%s, rawToken=<redacted>]"
                .formatted(actionId, tenantId, userId, channel);
    }
}
