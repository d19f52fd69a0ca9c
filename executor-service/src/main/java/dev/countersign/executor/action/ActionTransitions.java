package dev.countersign.executor.action;

import static dev.countersign.contracts.ActionStatus.CANCELLED;
import static dev.countersign.contracts.ActionStatus.CONFIRMED;
import static dev.countersign.contracts.ActionStatus.EXECUTED;
import static dev.countersign.contracts.ActionStatus.EXECUTING;
import static dev.countersign.contracts.ActionStatus.EXPIRED;
import static dev.countersign.contracts.ActionStatus.FAILED;
import static dev.countersign.contracts.ActionStatus.NEEDS_REVIEW;
import static dev.countersign.contracts.ActionStatus.PROPOSED;
import static dev.countersign.contracts.ActionStatus.SUPERSEDED;
import static dev.countersign.contracts.ActionStatus.UNDONE;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import dev.countersign.contracts.ActionStatus;

/**
 * The action state machine: the one list of legal moves. {@link ActionRepository} consults it before every
 * compare-and-swap; the {@code actions_guard} trigger in the database refuses the same illegal moves from any other
 * path (DatabaseInvariantsTest proves the two agree).
 *
 * <pre>
 * proposed -> confirmed -> executed -> undone
 * proposed | confirmed -> cancelled | expired
 * confirmed -> failed
 * confirmed -> executing -> executed | failed | needs_review     (external calls: claim, call, record)
 * needs_review -> executed | failed                             (a person checked the vendor)
 * proposed -> superseded                                        (a person's edit replaced it)
 * </pre>
 */
public final class ActionTransitions {

    private static final Map<ActionStatus, Set<ActionStatus>> LEGAL = new EnumMap<>(ActionStatus.class);

    static {
        LEGAL.put(PROPOSED, EnumSet.of(CONFIRMED, CANCELLED, EXPIRED, SUPERSEDED));
        LEGAL.put(CONFIRMED, EnumSet.of(EXECUTED, CANCELLED, EXPIRED, FAILED, EXECUTING));
        LEGAL.put(EXECUTED, EnumSet.of(UNDONE));
        LEGAL.put(EXECUTING, EnumSet.of(EXECUTED, FAILED, NEEDS_REVIEW));
        LEGAL.put(NEEDS_REVIEW, EnumSet.of(EXECUTED, FAILED));
        for (ActionStatus status : ActionStatus.values()) {
            LEGAL.putIfAbsent(status, EnumSet.noneOf(ActionStatus.class));
        }
    }

    private ActionTransitions() {
    }

    public static boolean isLegal(ActionStatus from, ActionStatus to) {
        return LEGAL.get(from).contains(to);
    }

    /**
     * Every compare-and-swap in {@link ActionRepository} names its move here first, so a new repository method cannot
     * introduce a move the state machine does not have.
     *
     * @throws IllegalTransitionException
     *             if the move is not in the state machine: a programming error, not a race (a race loser is told by its
     *             compare-and-swap matching no row)
     */
    public static void require(ActionStatus from, ActionStatus to) {
        if (!isLegal(from, to)) {
            throw new IllegalTransitionException(from, to);
        }
    }
}
