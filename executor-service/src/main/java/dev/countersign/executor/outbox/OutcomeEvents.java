package dev.countersign.executor.outbox;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.events.ActionCancelled;
import dev.countersign.contracts.events.ActionExecuted;
import dev.countersign.contracts.events.ActionExpired;
import dev.countersign.contracts.events.ActionFailed;
import dev.countersign.contracts.events.ActionNeedsReview;
import dev.countersign.contracts.events.ActionStaged;
import dev.countersign.contracts.events.ActionSuperseded;
import dev.countersign.contracts.events.ActionUndone;
import dev.countersign.executor.action.ActionRow;

/**
 * The one place that turns a stored action, just moved, into the outcome event that announces the move. Every event
 * gets a fresh id; the requester is the event's user, so outcomes reach only that user's conversation.
 */
public final class OutcomeEvents {

    private OutcomeEvents() {
    }

    public static ActionStaged staged(ActionRow row) {
        return new ActionStaged(UUID.randomUUID(), ActionStaged.SCHEMA_VERSION, row.proposedAt(), row.id(),
                row.tenantId(), row.requestedBy(), row.conversationId(), row.kind(), row.tier(), ActionStatus.PROPOSED,
                row.summary(), row.paramsHash(), row.expiresAt(), row.heldReason());
    }

    public static ActionExecuted executed(ActionRow row) {
        return new ActionExecuted(UUID.randomUUID(), ActionExecuted.SCHEMA_VERSION, row.executedAt(), row.id(),
                row.tenantId(), row.requestedBy(), row.conversationId(), row.kind(), row.summary(), row.confirmedBy(),
                row.result());
    }

    public static ActionFailed failed(ActionRow row, ErrorCode code, String reason) {
        return new ActionFailed(UUID.randomUUID(), ActionFailed.SCHEMA_VERSION, Instant.now(), row.id(),
                row.tenantId(), row.requestedBy(), row.conversationId(), row.kind(), row.summary(), code.code(),
                reason);
    }

    public static ActionCancelled cancelled(ActionRow row, String cancelledBy) {
        return new ActionCancelled(UUID.randomUUID(), ActionCancelled.SCHEMA_VERSION, Instant.now(), row.id(),
                row.tenantId(), row.requestedBy(), row.conversationId(), row.kind(), cancelledBy);
    }

    public static ActionNeedsReview needsReview(ActionRow row, String reason) {
        return new ActionNeedsReview(UUID.randomUUID(), ActionNeedsReview.SCHEMA_VERSION, Instant.now(), row.id(),
                row.tenantId(), row.requestedBy(), row.conversationId(), row.kind(), reason);
    }

    public static ActionUndone undone(ActionRow row) {
        return new ActionUndone(UUID.randomUUID(), ActionUndone.SCHEMA_VERSION, row.undoneAt(), row.id(),
                row.tenantId(), row.requestedBy(), row.conversationId(), row.kind(), row.undoneBy());
    }

    /** {@code row}, just superseded, to its requester's conversation: who edited it, what changed, what replaces it. */
    public static ActionSuperseded superseded(ActionRow row, String editedBy, List<String> changed) {
        return new ActionSuperseded(UUID.randomUUID(), ActionSuperseded.SCHEMA_VERSION, Instant.now(), row.id(),
                row.tenantId(), row.requestedBy(), row.conversationId(), row.kind(), row.supersededBy(), editedBy,
                List.copyOf(changed));
    }

    public static ActionExpired expired(ActionRow row) {
        return new ActionExpired(UUID.randomUUID(), ActionExpired.SCHEMA_VERSION, Instant.now(), row.id(),
                row.tenantId(), row.requestedBy(), row.conversationId(), row.kind(), row.expiresAt());
    }
}
