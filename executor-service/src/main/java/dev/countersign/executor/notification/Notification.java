package dev.countersign.executor.notification;

import java.util.UUID;

/**
 * One message to one person about one action ({@code notifications}): {@code id} is its identity, which a resend
 * repeats (the e-mail's Message-ID, the webhook's {@code webhook-id}); {@code attempts} counts the sends claimed so
 * far, this one included.
 */
public record Notification(UUID id, String tenantId, UUID actionId, String recipient, String channel, String purpose,
        String address, int attempts) {

    public static final String EMAIL = "email";
    public static final String WEBHOOK = "webhook";
    /** A request on the person's second device (OpenID CIBA); its address is their login hint. */
    public static final String SECOND_DEVICE = "second_device";
    public static final String WAITING = "waiting";
    public static final String REMINDER = "reminder";
}
