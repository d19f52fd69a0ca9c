package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.UUID;

/** The executor refused to stage a proposal; nothing was stored for it and nothing will run. */
public record ActionRejected(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        UUID actionId,
        String tenantId,
        String userId,
        String conversationId,
        String kind,
        String code,
        String reason) implements ActionOutcome {

    public static final int SCHEMA_VERSION = 1;

    @Override
    public String describe() {
        return "Action %s (%s) was rejected by the executor (%s); nothing was staged or changed.".formatted(actionId,
                kind, code);
    }
}
