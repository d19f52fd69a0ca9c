package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;

/** A person confirmed the action and the executor wrote it, exactly once. {@code result} is what it wrote. */
public record ActionExecuted(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        UUID actionId,
        String tenantId,
        String userId,
        String conversationId,
        String kind,
        String summary,
        String confirmedBy,
        JsonNode result) implements ActionOutcome {

    public static final int SCHEMA_VERSION = 1;

    /** {@code confirmedBy} of an action the tier rules applied on arrival, with no person's decision. */
    public static final String AUTO_APPLIER = "countersign/auto-apply";

    @Override
    public String describe() {
        if (AUTO_APPLIER.equals(confirmedBy)) {
            return "Action %s (%s) was applied automatically (its tier allows it), with no one's confirmation."
                    .formatted(actionId, kind);
        }
        return "Action %s (%s) was confirmed by %s and executed.".formatted(actionId, kind, confirmedBy);
    }
}
