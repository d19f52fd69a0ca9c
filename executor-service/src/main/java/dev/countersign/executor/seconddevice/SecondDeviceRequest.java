package dev.countersign.executor.seconddevice;

import java.time.Instant;
import java.util.UUID;

/**
 * One backchannel authentication request the identity provider accepted ({@code second_device_requests}, V39), bound to
 * the action, the parameters hash and the person it was sent to. {@code notificationId} is its identity: the
 * notification that started it.
 */
public record SecondDeviceRequest(UUID notificationId, String tenantId, UUID actionId, String userId,
        String paramsHash, String bindingCode, String authReqId, String state, int pollInterval, Instant expiresAt,
        Instant createdAt, String outcome) {

    public static final String PENDING = "pending";
    public static final String APPROVED = "approved";
    public static final String DENIED = "denied";
    public static final String EXPIRED = "expired";
    public static final String ENDED = "ended";

    @Override
    public String toString() {
        // Never the auth_req_id: with the client's secret it fetches the approval's token.
        return "SecondDeviceRequest[notificationId=%s, tenantId=%s, actionId=%s, userId=%s, state=%s]"
                .formatted(notificationId, tenantId, actionId, userId, state);
    }
}
