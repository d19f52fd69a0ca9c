package dev.countersign.executor.action;

import dev.countersign.contracts.ActionStatus;

/** A move that is not in the action state machine was attempted. */
public class IllegalTransitionException extends RuntimeException {

    public IllegalTransitionException(ActionStatus from, ActionStatus to) {
        super("illegal action transition %s -> %s".formatted(from.wireName(), to.wireName()));
    }
}
