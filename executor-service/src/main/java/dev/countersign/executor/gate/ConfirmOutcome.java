package dev.countersign.executor.gate;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.executor.action.ActionRow;

/** What a confirm request came to, decided inside its transaction and answered after the commit. */
public sealed interface ConfirmOutcome {

    /** This request won the compare-and-swap and the action was written. */
    record Executed(ActionRow action) implements ConfirmOutcome {
    }

    /** This request won, but the write was refused (and rolled back); the action is now failed. */
    record Failed(ActionRow action, ErrorCode code) implements ConfirmOutcome {
    }

    /** The action exists and the token is right, but it is no longer proposed; carries its current state. */
    record NotProposed(ActionRow action) implements ConfirmOutcome {
    }

    /** Unknown id, another tenant's action, or a wrong token: deliberately one answer. */
    record NotFound() implements ConfirmOutcome {
    }
}
