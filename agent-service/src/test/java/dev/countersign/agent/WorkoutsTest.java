package dev.countersign.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;

import org.junit.jupiter.api.Test;

import dev.countersign.agent.brief.DailyBrief.Workout;
import dev.countersign.agent.brief.Workouts;

/** The rule for a plan's next workouts, on fixed dates. */
class WorkoutsTest {

    /** A Wednesday. */
    private static final LocalDate WEDNESDAY = LocalDate.of(2025, 1, 1);
    private static final String WEEK = """
            Mon: 5 km easy run
            wednesday: intervals 6x400
            Notes: drink water
            FRI : rest
            Sun: long run 18 km
            """;

    @Test
    void weekdayLinesAreDatedOverTheNextSevenDaysInDayOrderAndOtherLinesAreLeftOut() {
        assertThat(Workouts.next(WEEK, WEDNESDAY, WEDNESDAY.minusDays(30))).containsExactly(
                new Workout(WEDNESDAY, "wednesday: intervals 6x400"),
                new Workout(LocalDate.of(2025, 1, 3), "FRI : rest"),
                new Workout(LocalDate.of(2025, 1, 5), "Sun: long run 18 km"),
                new Workout(LocalDate.of(2025, 1, 6), "Mon: 5 km easy run"));
    }

    @Test
    void aPlanThatStartsLaterIsShownFromItsFirstDay() {
        LocalDate saturday = LocalDate.of(2025, 1, 11);

        assertThat(Workouts.next(WEEK, WEDNESDAY, saturday)).extracting(Workout::on).containsExactly(
                LocalDate.of(2025, 1, 12), LocalDate.of(2025, 1, 13), LocalDate.of(2025, 1, 15),
                LocalDate.of(2025, 1, 17));
    }

    @Test
    void aScheduleWithoutWeekdaysIsListedWholeAndUndated() {
        assertThat(Workouts.next("Tu: not a weekday\n\n  3 x 5 km tempo  \nRest: one day", WEDNESDAY, WEDNESDAY))
                .containsExactly(new Workout(null, "Tu: not a weekday"), new Workout(null, "3 x 5 km tempo"),
                        new Workout(null, "Rest: one day"));
    }

    @Test
    void atMostFourteenWorkoutsAreListed() {
        assertThat(Workouts.next("Wed: run\n".repeat(20), WEDNESDAY, WEDNESDAY)).hasSize(Workouts.MAX);
        assertThat(Workouts.next("run\n".repeat(20), WEDNESDAY, WEDNESDAY)).hasSize(Workouts.MAX);
    }
}
