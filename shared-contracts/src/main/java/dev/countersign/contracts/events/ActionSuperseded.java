package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A person edited the action before anyone approved it (edit before approve): it will never run, and a new action,
 * {@code supersededBy}, bound to the edited parameters and requested by the editor, waits for its own decision.
 * {@code changed} names the parameters the edit changed (names only: the values stay out of the model's context).
 */
public record ActionSuperseded(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        UUID actionId,
        String tenantId,
        String userId,
        String conversationId,
        String kind,
        UUID supersededBy,
        String editedBy,
        List<String> changed) implements ActionOutcome {

    public static final int SCHEMA_VERSION = 1;

    @Override
    public String describe() {
        return ("Action %s (%s) was edited by %s before anyone approved it (changed: %s); it will not run. Action %s"
                + " replaces it and waits for a decision.").formatted(actionId, kind, editedBy,
                        String.join(", ", changed), supersededBy);
    }
}
