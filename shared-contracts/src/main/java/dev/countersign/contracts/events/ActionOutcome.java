package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * Everything the executor publishes on {@link dev.countersign.contracts.Topics#ACTIONS_OUTCOMES}. The {@code type}
 * member names the event; consumers skip types they do not know.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = ActionStaged.class, name = "ActionStaged"),
        @JsonSubTypes.Type(value = ActionRejected.class, name = "ActionRejected"),
        @JsonSubTypes.Type(value = ActionExecuted.class, name = "ActionExecuted"),
        @JsonSubTypes.Type(value = ActionFailed.class, name = "ActionFailed"),
        @JsonSubTypes.Type(value = ActionCancelled.class, name = "ActionCancelled"),
        @JsonSubTypes.Type(value = ActionExpired.class, name = "ActionExpired"),
        @JsonSubTypes.Type(value = ActionUndone.class, name = "ActionUndone"),
        @JsonSubTypes.Type(value = ActionNeedsReview.class, name = "ActionNeedsReview"),
        @JsonSubTypes.Type(value = ActionSuperseded.class, name = "ActionSuperseded")
})
public sealed interface ActionOutcome
        permits ActionStaged, ActionRejected, ActionExecuted, ActionFailed, ActionCancelled,
        ActionExpired, ActionUndone, ActionNeedsReview, ActionSuperseded {

    UUID eventId();

    int schemaVersion();

    Instant occurredAt();

    UUID actionId();

    String tenantId();

    /** The user who asked for the action (the proposal's user), so outcomes reach only that user's conversation. */
    String userId();

    String conversationId();

    /** Whether this outcome ends the action's wait for a decision (everything but {@code ActionStaged}). */
    default boolean settlesTheProposal() {
        return true;
    }

    /**
     * One line a model or a person can read: what happened to the action. Built from structured fields only (ids, kind,
     * status, codes), never from free text a user or a model wrote, because it is shown to the model.
     */
    String describe();
}
