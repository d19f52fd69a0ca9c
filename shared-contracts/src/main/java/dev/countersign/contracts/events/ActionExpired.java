package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.UUID;

/** Nobody decided within the window; the action will never run. */
public record ActionExpired(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        UUID actionId,
        String tenantId,
        String userId,
        String conversationId,
        String kind,
        Instant expiresAt) implements ActionOutcome {

    public static final int SCHEMA_VERSION = 1;

    @Override
    public String describe() {
        return "Action %s (%s) expired without a decision at %s; nothing was changed.".formatted(actionId, kind,
                expiresAt);
    }
}
