package dev.countersign.executor.imports.csv;

import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The date format an uploader declares for one import ({@code dateFormat=dd/MM/yyyy}), never guessed: 01/02/2026 is the
 * first of February under {@code dd/MM/yyyy} and the second of January under {@code MM/dd/yyyy}, and only the uploader
 * knows which their bank writes. A format names the day ({@code d} or {@code dd}), the month ({@code M} or {@code MM})
 * and a four-digit year ({@code yyyy}) once each, in any order, separated by one of {@code - . /} or a space, or by
 * nothing when every part has a fixed width ({@code yyyyMMdd}). Two-digit years are refused: 01/02/03 has no one
 * reading. Dates are read strictly: 31/02/2026 is not a date.
 */
public final class DeclaredDates {

    /** The format when an import declares none: ISO 8601, as every other date of the API. */
    public static final String DEFAULT = "yyyy-MM-dd";

    private static final Pattern FORMAT = Pattern.compile(
            "(d{1,2}|M{1,2}|y{4})([-./ ]?)(d{1,2}|M{1,2}|y{4})([-./ ]?)(d{1,2}|M{1,2}|y{4})");

    /** The earliest and latest years read: a bank line of year 0 or 20260 is a typo, not a date. */
    static final int FIRST_YEAR = 1900;
    static final int LAST_YEAR = 2999;

    private final String declared;
    private final DateTimeFormatter formatter;
    /** The cell's shape: exactly the declared digits, so a sign or a fifth year digit never reaches the parser. */
    private final Pattern shape;

    private DeclaredDates(String declared, DateTimeFormatter formatter, Pattern shape) {
        this.declared = declared;
        this.formatter = formatter;
        this.shape = shape;
    }

    /** The format {@code declared} names, or empty if it is not one this page's rules accept. */
    public static Optional<DeclaredDates> of(String declared) {
        var matcher = FORMAT.matcher(declared);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        List<String> parts = List.of(matcher.group(1), matcher.group(3), matcher.group(5));
        String letters = parts.stream().map(part -> part.substring(0, 1)).sorted().collect(Collectors.joining());
        boolean separated = !matcher.group(2).isEmpty() && !matcher.group(4).isEmpty();
        boolean adjoining = matcher.group(2).isEmpty() && matcher.group(4).isEmpty()
                && parts.stream().allMatch(part -> part.length() > 1);
        if (!letters.equals("Mdy") || !(separated || adjoining)) {
            return Optional.empty();
        }
        DateTimeFormatter formatter = DateTimeFormatter.ofPattern(declared.replace('y', 'u'), Locale.ROOT)
                .withResolverStyle(ResolverStyle.STRICT);
        StringBuilder shape = new StringBuilder();
        for (int group = 1; group <= 5; group++) {
            String part = matcher.group(group);
            shape.append(group % 2 == 0
                    ? Pattern.quote(part)
                    : part.length() == 1 ? "\\d{1,2}" : "\\d{" + part.length() + "}");
        }
        return Optional.of(new DeclaredDates(declared, formatter, Pattern.compile(shape.toString())));
    }

    /** {@code cell} read as this format, or empty if it is not a date written so. */
    public Optional<LocalDate> read(String cell) {
        if (!shape.matcher(cell).matches()) {
            return Optional.empty();
        }
        try {
            LocalDate date = LocalDate.parse(cell, formatter);
            return date.getYear() < FIRST_YEAR || date.getYear() > LAST_YEAR ? Optional.empty() : Optional.of(date);
        } catch (DateTimeParseException notADate) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return declared;
    }
}
