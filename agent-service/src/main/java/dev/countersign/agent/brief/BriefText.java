package dev.countersign.agent.brief;

import java.util.StringJoiner;

import dev.countersign.agent.brief.DailyBrief.Workout;
import dev.countersign.agent.ledger.LedgerReader;
import dev.countersign.agent.ledger.LedgerReader.SpendingTotal;

/** A brief as text, built from its data alone (no model is asked), for the conversation ledger. */
public final class BriefText {

    private BriefText() {
    }

    public static String of(DailyBrief brief) {
        StringJoiner text = new StringJoiner("\n");
        text.add("Daily brief, %s to %s.".formatted(brief.from(), brief.to()));
        if (brief.totals().isEmpty()) {
            text.add("No confirmed spending recorded since the last brief.");
        } else {
            text.add("Spending recorded since the last brief:");
            brief.spending().forEach(line -> text.add("- %s: %s".formatted(line.category(), amount(line))));
            brief.totals().forEach(total -> text.add("Total: " + amount(total)));
        }
        String leftOut = LedgerReader.leftOut(brief.unconfirmedLeftOut());
        if (!leftOut.isEmpty()) {
            text.add(leftOut.strip());
        }
        if (brief.pendingActions().isEmpty()) {
            text.add("Nothing waits for your decision.");
        } else {
            text.add("Waiting for your decision:");
            brief.pendingActions().forEach(action -> text.add("- %s (%s tier, expires %s)".formatted(action.summary(),
                    action.tier(), action.expiresAt())));
        }
        if (brief.training() == null) {
            text.add("No active training plan.");
        } else if (brief.training().nextWorkouts().isEmpty()) {
            text.add("Training plan \"%s\": no workouts in the next %d days.".formatted(brief.training().name(),
                    Workouts.DAYS));
        } else {
            text.add("Training plan \"%s\", next workouts:".formatted(brief.training().name()));
            brief.training().nextWorkouts().forEach(workout -> text.add("- " + workout(workout)));
        }
        return text.toString();
    }

    private static String amount(SpendingTotal total) {
        return "%s %s (%d transactions)".formatted(total.total(), total.currency(), total.transactions());
    }

    private static String workout(Workout workout) {
        return workout.on() == null ? workout.text() : workout.on() + " " + workout.text();
    }
}
