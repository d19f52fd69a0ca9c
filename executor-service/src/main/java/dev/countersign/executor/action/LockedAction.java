package dev.countersign.executor.action;

/**
 * An action row locked for a decision, with the confirm token hash the decision's compare-and-swap matches.
 *
 * @param tokenHash
 *            the hash of the token the decision carries, or the stored one for a signed-in person
 * @param row
 *            the locked action; null when no action of the tenant has that id and token hash
 */
public record LockedAction(String tokenHash, ActionRow row) {
}
