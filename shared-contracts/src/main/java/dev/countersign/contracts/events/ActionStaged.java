package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.UUID;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.Tier;

/** The executor stored a proposal; it now waits for a person's decision until {@code expiresAt}. */
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
        Instant expiresAt) implements ActionOutcome {

    public static final int SCHEMA_VERSION = 1;

    @Override
    public boolean settlesTheProposal() {
        return false;
    }

    @Override
    public String describe() {
        return "Action %s (%s) is staged, waiting for the user's confirmation until %s.".formatted(actionId, kind,
                expiresAt);
    }
}
