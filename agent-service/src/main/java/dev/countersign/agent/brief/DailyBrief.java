package dev.countersign.agent.brief;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.UUID;

import dev.countersign.agent.actions.ActionReader.ActionLine;
import dev.countersign.agent.ledger.LedgerReader.SpendingTotal;

/**
 * What a user's daily brief says, read from confirmed data only.
 *
 * @param from
 *            the end of the user's last scheduled brief, or {@code to} minus the first window
 * @param to
 *            the database's clock when the spending was read
 * @param spending
 *            confirmed, not deleted rows recorded in the window, per category and currency, largest first
 * @param totals
 *            the same rows per currency
 * @param unconfirmedLeftOut
 *            imported rows of the window not yet confirmed by a person, left out of both
 * @param pendingActions
 *            the user's proposals still waiting for a decision (inside their window)
 * @param training
 *            the active training plan's next workouts; null without an active plan
 */
public record DailyBrief(Instant from, Instant to, List<SpendingTotal> spending, List<SpendingTotal> totals,
        long unconfirmedLeftOut, List<ActionLine> pendingActions, Training training) {

    public record Training(UUID planId, String name, List<Workout> nextWorkouts) {
    }

    /** One line of the plan's schedule; {@code on} is null for a schedule without weekdays (see {@link Workouts}). */
    public record Workout(LocalDate on, String text) {
    }
}
