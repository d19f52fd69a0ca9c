package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.UUID;

/**
 * A confirmed action could not be written. Nothing of it was applied (its writes were rolled back); it will not be
 * retried automatically.
 */
public record ActionFailed(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        UUID actionId,
        String tenantId,
        String userId,
        String conversationId,
        String kind,
        String summary,
        String code,
        String reason) implements ActionOutcome {

    public static final int SCHEMA_VERSION = 1;

    @Override
    public String describe() {
        return "Action %s (%s) was confirmed but failed (%s); nothing was written.".formatted(actionId, kind, code);
    }
}
