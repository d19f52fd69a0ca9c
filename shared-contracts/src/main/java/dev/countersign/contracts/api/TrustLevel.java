package dev.countersign.contracts.api;

import java.time.Instant;

/**
 * How far a user's agent has earned trust for MEDIUM actions (edits, renames).
 *
 * @param mediumConfirmedInARow
 *            MEDIUM actions of this user a person confirmed since the last reset
 * @param needed
 *            how many in a row make MEDIUM actions apply on arrival (the executor's configuration)
 * @param mediumAutoApplies
 *            whether a MEDIUM proposal of this user is applied on arrival now (also needs agent writes {@code enabled})
 * @param resetBecause
 *            what last set the count back to zero (an undo, a cancelled MEDIUM proposal), or null
 */
public record TrustLevel(String userId, int mediumConfirmedInARow, int needed, boolean mediumAutoApplies,
        Instant resetAt, String resetBecause) {
}
