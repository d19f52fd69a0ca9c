package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A plan turn explicitly declined to draft a statement: its reply had a line starting {@code NO STATEMENT:} followed by
 * what is missing.
 *
 * @param missing
 *            the model's words after the marker
 * @param question
 *            the first question in them, if there is one (a refusal without a question mark still counts)
 */
public record PlanRefused(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        String tenantId,
        String userId,
        String conversationId,
        UUID turnId,
        String missing,
        String question) implements PlanEvent {

    public static final String TYPE = "PlanRefused";
    public static final String MARKER = "NO STATEMENT:";

    public PlanRefused {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(conversationId, "conversationId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(missing, "missing");
    }
}
