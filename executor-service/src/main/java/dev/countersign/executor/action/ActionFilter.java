package dev.countersign.executor.action;

import java.time.Instant;
import java.util.UUID;

import dev.countersign.contracts.ActionStatus;

/**
 * What {@code GET /api/actions} narrows to; null members do not narrow. The "after" pair is the page cursor;
 * {@code visibleTo} keeps the actions that person asked for or whose row they own (the decision rule's reads for
 * whoever may not read the whole tenant).
 */
public record ActionFilter(ActionStatus status, String kind, String conversationId, Instant afterProposedAt,
        UUID afterId, String visibleTo) {
}
