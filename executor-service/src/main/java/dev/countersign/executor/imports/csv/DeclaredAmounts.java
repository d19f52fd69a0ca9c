package dev.countersign.executor.imports.csv;

import java.math.BigDecimal;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How amounts are written in one import: the decimal mark the uploader declares ({@code decimal=.} or
 * {@code decimal=,}), never guessed. Digits may be grouped by thousands with one grouping character: the other of
 * {@code .} and {@code ,}, a space, a no-break space (U+00A0, U+202F) or an apostrophe, used the same way throughout
 * and only between groups of three digits ({@code 1.234,56} under a decimal comma; {@code 1,234.56} or {@code 1 234.56}
 * under a decimal point). An optional leading {@code +} or {@code -}. Anything else (a currency sign, a grouping that
 * is not by thousands, two decimal marks) is not an amount: {@code 1,23} under a decimal point is refused rather than
 * read as 123.
 */
public enum DeclaredAmounts {

    POINT('.', ','), COMMA(',', '.');

    /**
     * The longest cell read as an amount (the catalogue's largest, 10,000,000.00, grouped and signed, is 14): a longer
     * one is refused before it is parsed, as parsing a number of a million digits costs seconds.
     */
    static final int LONGEST = 32;

    private final char mark;
    private final Pattern amount;

    DeclaredAmounts(char mark, char otherMark) {
        this.mark = mark;
        String grouping = "[" + Pattern.quote(String.valueOf(otherMark)) + " \u00A0\u202F'\u2019]";
        this.amount = Pattern.compile("([+-]?)(\\d+|[1-9]\\d{0,2}(" + grouping + ")\\d{3}(?:\\3\\d{3})*)(?:"
                + Pattern.quote(String.valueOf(mark)) + "(\\d+))?");
    }

    /** The decimal mark {@code declared} names ({@code .} or {@code ,}), or empty. */
    public static Optional<DeclaredAmounts> of(String declared) {
        for (DeclaredAmounts amounts : values()) {
            if (declared.equals(String.valueOf(amounts.mark))) {
                return Optional.of(amounts);
            }
        }
        return Optional.empty();
    }

    /** {@code cell} as a number, signed as written, or empty if it is not an amount written this way. */
    public Optional<BigDecimal> read(String cell) {
        if (cell.length() > LONGEST) {
            return Optional.empty();
        }
        var matcher = amount.matcher(cell);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        String integer = matcher.group(2).replaceAll("\\D", "");
        String fraction = matcher.group(4) == null ? "" : "." + matcher.group(4);
        return Optional.of(new BigDecimal(matcher.group(1) + integer + fraction));
    }

    public char mark() {
        return mark;
    }
}
