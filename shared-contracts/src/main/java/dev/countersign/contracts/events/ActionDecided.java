package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * An integration relays a person's decision on {@link dev.countersign.contracts.Topics#ACTIONS_DECISIONS}: confirm or
 * cancel, with the one-time token the person was shown. It carries the raw token, so the topic is kept short (see the
 * deployment) and {@link #toString()} never prints it.
 *
 * @param channel
 *            where the person decided ({@code slack}, {@code email}, {@code chat}, ...), recorded in the history
 * @param turnId
 *            the conversation turn that relayed it, for decisions made in the chat (may be null)
 * @param paramsHash
 *            the hash of the parameters the person was shown: required on a confirm (one without it is parked on the
 *            dead-letter topic and changes nothing), may be null on a cancel; a mismatch runs nothing
 */
public record ActionDecided(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        UUID actionId,
        String tenantId,
        String userId,
        Decision decision,
        String token,
        String channel,
        UUID turnId,
        String paramsHash) {

    public static final int SCHEMA_VERSION = 1;

    public enum Decision {

        CONFIRM, CANCEL;

        @com.fasterxml.jackson.annotation.JsonValue
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        @com.fasterxml.jackson.annotation.JsonCreator
        public static Decision fromWire(String value) {
            return valueOf(value.toUpperCase(java.util.Locale.ROOT));
        }
    }

    public ActionDecided {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(actionId, "actionId");
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(channel, "channel");
    }

    @Override
    public String toString() {
        return "ActionDecided[eventId=%s, actionId=%s, tenantId=%s, userId=%s, decision=%s, channel=%s, token=<redacted>]"
                .formatted(eventId, actionId, tenantId, userId, decision, channel);
    }
}
