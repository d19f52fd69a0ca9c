package dev.countersign.executor.action;

import java.time.Instant;

/**
 * An action row locked for a decision, with the confirm token hash the decision's compare-and-swap matches.
 *
 * @param tokenHash
 *            the hash of the token the decision carries, or the stored one for a signed-in person
 * @param row
 *            the locked action; null when no action of the tenant has that id and token hash
 * @param open
 *            whether its decision window was open when it was locked ({@code expires_at > now()}, the transaction's
 *            start, the same test the compare-and-swap makes later in that transaction); false without a row
 * @param lockedAt
 *            the transaction's {@code now()}, which every move of this transaction stamps (a confirmation's
 *            {@code confirmed_at}, an execution's {@code executed_at}); null without a row
 */
public record LockedAction(String tokenHash, ActionRow row, boolean open, Instant lockedAt) {

    /** No action of the tenant with that id (and token hash). */
    public static LockedAction none(String tokenHash) {
        return new LockedAction(tokenHash, null, false, null);
    }
}
