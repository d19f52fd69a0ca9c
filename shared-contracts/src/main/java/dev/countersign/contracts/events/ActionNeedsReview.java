package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.UUID;

/**
 * An external call (an e-mail, a ticket) may or may not have reached the vendor: the executor will not repeat it on its
 * own. A person checks the vendor and resolves the action to executed or failed.
 */
public record ActionNeedsReview(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        UUID actionId,
        String tenantId,
        String userId,
        String conversationId,
        String kind,
        String reason) implements ActionOutcome {

    public static final int SCHEMA_VERSION = 1;

    @Override
    public String describe() {
        return "Action %s (%s) may or may not have been carried out; a person must check before anything is repeated."
                .formatted(actionId, kind);
    }
}
