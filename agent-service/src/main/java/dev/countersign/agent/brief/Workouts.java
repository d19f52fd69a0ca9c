package dev.countersign.agent.brief;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.countersign.agent.brief.DailyBrief.Workout;

/**
 * The one rule for a plan's next workouts. A schedule is text, one workout a line. A line that starts with a weekday
 * (at least its first three letters, any case) and a colon, like {@code Mon: 5 km easy run}, is that weekday's workout.
 * If some lines have a weekday, the next workouts are those lines dated over the {@value #DAYS} days from today, or
 * from the plan's first day if that is later, in day order; lines without a weekday are then left out. If no line has
 * one, every non-blank line is listed, undated. At most {@value #MAX} workouts.
 */
public final class Workouts {

    public static final int DAYS = 7;
    public static final int MAX = 14;

    private static final Pattern WEEKDAY = Pattern.compile("^\\s*(\\p{L}{3,})\\s*:");

    private Workouts() {
    }

    public static List<Workout> next(String schedule, LocalDate today, LocalDate startsOn) {
        List<String> lines = schedule == null
                ? List.of()
                : schedule.lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
        if (lines.stream().noneMatch(line -> weekday(line).isPresent())) {
            return lines.stream().limit(MAX).map(line -> new Workout(null, line)).toList();
        }
        LocalDate first = startsOn != null && startsOn.isAfter(today) ? startsOn : today;
        List<Workout> next = new ArrayList<>();
        for (LocalDate day = first; day.isBefore(first.plusDays(DAYS)); day = day.plusDays(1)) {
            for (String line : lines) {
                if (weekday(line).filter(day.getDayOfWeek()::equals).isPresent() && next.size() < MAX) {
                    next.add(new Workout(day, line));
                }
            }
        }
        return List.copyOf(next);
    }

    /** The weekday a line starts with: "Mon", "monday", "THURS" followed by a colon. */
    static Optional<DayOfWeek> weekday(String line) {
        Matcher start = WEEKDAY.matcher(line);
        if (!start.find()) {
            return Optional.empty();
        }
        String word = start.group(1).toUpperCase(Locale.ROOT);
        for (DayOfWeek day : DayOfWeek.values()) {
            if (day.name().startsWith(word)) {
                return Optional.of(day);
            }
        }
        return Optional.empty();
    }
}
