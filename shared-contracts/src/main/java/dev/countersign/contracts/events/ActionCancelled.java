package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.UUID;

/** A person cancelled the action before it ran; it will never run. */
public record ActionCancelled(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        UUID actionId,
        String tenantId,
        String userId,
        String conversationId,
        String kind,
        String cancelledBy) implements ActionOutcome {

    public static final int SCHEMA_VERSION = 1;

    @Override
    public String describe() {
        return "Action %s (%s) was cancelled by %s; nothing was changed.".formatted(actionId, kind, cancelledBy);
    }
}
