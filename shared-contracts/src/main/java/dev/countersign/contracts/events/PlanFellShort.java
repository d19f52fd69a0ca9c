package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A plan turn that ended with neither a statement nor an explicit refusal: the verdict's shortfall, however long the
 * prose was.
 *
 * @param reason
 *            why the reply is not a deliverable (no fence and no refusal, a bare marker, a fence tagged for another
 *            engine, more than one statement fence)
 */
public record PlanFellShort(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        String tenantId,
        String userId,
        String conversationId,
        UUID turnId,
        String reason) implements PlanEvent {

    public static final String TYPE = "PlanFellShort";

    public PlanFellShort {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(conversationId, "conversationId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(reason, "reason");
    }
}
