package dev.countersign.executor.action;

import dev.countersign.contracts.ErrorCode;

/** What a decision (confirm or cancel) came to, decided inside its transaction and answered after the commit. */
public sealed interface DecisionOutcome {

    /** This request won the compare-and-swap and the action was written. */
    record Executed(ActionRow action) implements DecisionOutcome {
    }

    /**
     * This request won and claimed an external call ({@code executing}); the caller makes the call after the
     * transaction commits.
     */
    record Claimed(ActionRow action) implements DecisionOutcome {
    }

    /** The external call's outcome is unknown; the action waits for a person ({@code needs_review}). */
    record NeedsReview(ActionRow action) implements DecisionOutcome {
    }

    /** This request won and the action will never run. */
    record Cancelled(ActionRow action) implements DecisionOutcome {
    }

    /** This request won, but the write was refused (and rolled back); the action is now failed. */
    record Failed(ActionRow action, ErrorCode code) implements DecisionOutcome {
    }

    /** The action exists and the token is right, but it is no longer proposed; carries its current state. */
    record NotProposed(ActionRow action) implements DecisionOutcome {
    }

    /** The same decisions-topic event was already processed; nothing happened this time. */
    record AlreadyDecided() implements DecisionOutcome {
    }

    /** The decision named other parameters than the stored ones; nothing ran. */
    record ParamsMismatch(ActionRow action) implements DecisionOutcome {
    }

    /** Relayed from the chat in the turn that proposed the action; nothing changed. */
    record SameTurn(ActionRow action) implements DecisionOutcome {
    }

    /** A HIGH action under a k-approvals policy: this approval was recorded, more are needed; nothing ran yet. */
    record AwaitingApprovals(ActionRow action, java.util.List<String> approvers, int required)
            implements
                DecisionOutcome {
    }

    /** The tenant's policy does not let this user approve this action; nothing changed. */
    record ApproverNotAllowed(ActionRow action) implements DecisionOutcome {
    }

    /** A signed-in person who neither asked for this action nor approves in its tenant; nothing changed. */
    record NotEntitled(ActionRow action) implements DecisionOutcome {
    }

    /** Unknown id, another tenant's action, or a wrong token: deliberately one answer. */
    record NotFound() implements DecisionOutcome {
    }
}
