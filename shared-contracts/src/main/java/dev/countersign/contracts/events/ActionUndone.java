package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.UUID;

/** A person undid an executed action: the row it wrote is back as it was before. */
public record ActionUndone(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        UUID actionId,
        String tenantId,
        String userId,
        String conversationId,
        String kind,
        String undoneBy) implements ActionOutcome {

    public static final int SCHEMA_VERSION = 1;

    @Override
    public String describe() {
        return "Action %s (%s) was undone by %s; what it wrote is back as it was.".formatted(actionId, kind,
                undoneBy);
    }
}
