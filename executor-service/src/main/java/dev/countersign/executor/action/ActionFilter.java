package dev.countersign.executor.action;

import java.time.Instant;
import java.util.UUID;

import dev.countersign.contracts.ActionStatus;

/** What {@code GET /api/actions} narrows to; null members do not narrow. The "after" pair is the page cursor. */
public record ActionFilter(ActionStatus status, String kind, String conversationId, Instant afterProposedAt,
        UUID afterId) {
}
