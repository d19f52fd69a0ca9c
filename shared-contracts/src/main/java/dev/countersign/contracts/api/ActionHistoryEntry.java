package dev.countersign.contracts.api;

import java.time.Instant;

import dev.countersign.contracts.ActionStatus;

/**
 * One state an action entered: from which ({@code null} when it was proposed), who moved it, through which channel
 * ({@code agent}, {@code http}, {@code sweep} for expiry, an integration's own channel from the decisions topic, or
 * {@code sql} for a statement outside the application), and why when there is a reason.
 */
public record ActionHistoryEntry(ActionStatus from, ActionStatus to, String actor, String channel, String reason,
        Instant at) {
}
