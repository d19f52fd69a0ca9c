package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.UUID;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.Tier;

/**
 * The executor stored a proposal; it now waits for a person's decision until {@code expiresAt}.
 *
 * @param heldReason
 *            why it waits for a person although its tier could have applied it on arrival (the auto-apply budget is
 *            spent, or the turn read text its user did not write); null when it simply waits, or is applied
 */
public record ActionStaged(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        UUID actionId,
        String tenantId,
        String userId,
        String conversationId,
        String kind,
        Tier tier,
        ActionStatus status,
        String summary,
        String paramsHash,
        Instant expiresAt,
        String heldReason) implements ActionOutcome {

    public static final int SCHEMA_VERSION = 1;

    @Override
    public boolean settlesTheProposal() {
        return false;
    }

    @Override
    public String describe() {
        return "Action %s (%s) is staged, waiting for the user's confirmation until %s%s.".formatted(actionId, kind,
                expiresAt, heldReason == null ? "" : " (not applied automatically: " + heldReason + ")");
    }
}
