package dev.countersign.executor.imports.csv;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.catalogue.Violation;
import dev.countersign.web.ProblemException;

/**
 * How one uploaded CSV is written, as its uploader declares it; nothing of it is guessed from the content. The media
 * type carries what RFC 7111 gives it ({@code text/csv; charset=windows-1252; header=present}), the query the rest
 * ({@code delimiter}, {@code dateFormat}, {@code decimal}, {@code expenses}, {@code category} and the column names).
 * Every part has a default, today's format: UTF-8, comma, ISO dates, decimal point, expenses as positive amounts, a
 * header row if the first row names the date column. See docs/security/imports.md.
 *
 * @param header
 *            whether the first row names the columns; {@link Header#DETECT} when the media type does not say
 * @param expensesNegative
 *            whether an expense is written as a negative amount in the amount column (money in as a positive one,
 *            skipped); otherwise an amount must be positive
 * @param category
 *            the category of a row whose file has no category column or whose category cell is empty
 */
public record CsvDeclaration(Charset charset, Header header, char delimiter, DeclaredDates dates,
        DeclaredAmounts amounts, boolean expensesNegative, Columns columns, Optional<String> category) {

    /** The query parameters this reads; the import's own {@code wallet} besides. */
    public static final Set<String> QUERY = Set.of("delimiter", "dateFormat", "decimal", "expenses", "category",
            "dateColumn", "amountColumn", "debitColumn", "creditColumn", "categoryColumn", "descriptionColumn");

    private static final Charset WINDOWS_1252 = Charset.forName("windows-1252");
    private static final Map<String, Charset> CHARSETS = Map.of("utf-8", StandardCharsets.UTF_8, "utf8",
            StandardCharsets.UTF_8, "us-ascii", StandardCharsets.UTF_8, "windows-1252", WINDOWS_1252, "cp1252",
            WINDOWS_1252, "iso-8859-1", WINDOWS_1252, "latin1", WINDOWS_1252);
    private static final Map<String, Character> DELIMITERS = Map.of(",", ',', "comma", ',', ";", ';', "semicolon",
            ';', "tab", '\t', "\t", '\t');

    public enum Header {
        PRESENT, ABSENT, DETECT
    }

    /**
     * The names of the columns in a header row, matched without regard to case or surrounding spaces. A file has either
     * an amount column or a debit column (money out) with an optional credit column (money in).
     */
    public record Columns(String date, String amount, String debit, String credit, String category,
            String description, Read read) {
    }

    /**
     * Which money columns the uploader named: an amount column, a debit column, or neither (then a header that has both
     * an {@code amount} and a {@code debit} column is refused as ambiguous).
     */
    public enum Read {
        AMOUNT, DEBIT_AND_CREDIT, AS_NAMED_BY_THE_HEADER
    }

    /**
     * @param mediaTypeParameters
     *            the parameters of the request's Content-Type, names in lower case
     * @param query
     *            the request's query parameters (one value each); a name outside {@link #QUERY} and {@code wallet} is
     *            refused, so a misspelt declaration never silently falls back to a default
     * @throws ProblemException
     *             400 {@code validation_failed} naming every declaration it cannot read, 415 for a charset it does not
     *             decode
     */
    public static CsvDeclaration of(Map<String, String> mediaTypeParameters, Map<String, String> query) {
        Charset charset = charset(mediaTypeParameters.get("charset"));
        List<Violation> violations = new ArrayList<>();
        query.keySet().stream().filter(name -> !name.equals("wallet") && !QUERY.contains(name)).sorted()
                .forEach(name -> violations.add(new Violation(name, "is not a declaration of an import; declare "
                        + String.join(", ", QUERY.stream().sorted().toList()))));
        query.forEach((name, value) -> {
            if (QUERY.contains(name) && (value == null || value.isEmpty())) {
                violations.add(new Violation(name, "is empty; leave it out for its default"));
            }
        });
        Header header = switch (mediaTypeParameters.getOrDefault("header", "").toLowerCase(Locale.ROOT)) {
            case "" -> Header.DETECT;
            case "present" -> Header.PRESENT;
            case "absent" -> Header.ABSENT;
            default -> {
                violations.add(new Violation("header", "the media type's header parameter is present or absent"));
                yield Header.DETECT;
            }
        };
        Function<String, String> declared = name -> Optional.ofNullable(query.get(name)).map(String::strip)
                .orElse(null);
        Character delimiter = declared(violations, "delimiter", query.get("delimiter"), ",",
                DELIMITERS::get, "is , (comma), ; (semicolon) or tab");
        DeclaredDates dates = declared(violations, "dateFormat", declared.apply("dateFormat"), DeclaredDates.DEFAULT,
                value -> DeclaredDates.of(value).orElse(null), "names d or dd, M or MM and yyyy once each, separated"
                        + " by one of - . / or a space (dd.MM.yyyy, MM/dd/yyyy), or yyyyMMdd-like with no separator");
        DeclaredAmounts amounts = declared(violations, "decimal", declared.apply("decimal"), ".",
                value -> DeclaredAmounts.of(value).orElse(null), "is . (point) or , (comma)");
        Boolean negative = declared(violations, "expenses", declared.apply("expenses"), "positive",
                value -> switch (value) {
                    case "positive" -> Boolean.FALSE;
                    case "negative" -> Boolean.TRUE;
                    default -> null;
                }, "is positive (an expense is a positive amount) or negative (an expense is a negative amount and"
                        + " money in a positive one)");
        Columns columns = new Columns(column(declared, "dateColumn", "date"),
                column(declared, "amountColumn", "amount"),
                column(declared, "debitColumn", "debit"), column(declared, "creditColumn", "credit"),
                column(declared, "categoryColumn", "category"), column(declared, "descriptionColumn", "description"),
                query.containsKey("amountColumn") && (query.containsKey("debitColumn") || query.containsKey(
                        "creditColumn"))
                                ? null
                                : query.containsKey("amountColumn")
                                        ? Read.AMOUNT
                                        : query.containsKey("debitColumn") || query.containsKey("creditColumn")
                                                ? Read.DEBIT_AND_CREDIT
                                                : Read.AS_NAMED_BY_THE_HEADER);
        if (columns.read() == null) {
            violations.add(new Violation("amountColumn", "declare either amountColumn or debitColumn (with"
                    + " creditColumn), not both"));
        }
        if (!violations.isEmpty()) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, "The import's declaration cannot be read; nothing"
                    + " was imported.", violations);
        }
        return new CsvDeclaration(charset, header, delimiter, dates, amounts, negative, columns,
                Optional.ofNullable(declared.apply("category")).filter(category -> !category.isEmpty()));
    }

    private static Charset charset(String declared) {
        if (declared == null) {
            return StandardCharsets.UTF_8;
        }
        Charset charset = CHARSETS.get(declared.strip().replace("\"", "").toLowerCase(Locale.ROOT));
        if (charset == null) {
            throw new ProblemException(ErrorCode.UNSUPPORTED_REQUEST, "An import is UTF-8 or windows-1252 (declare"
                    + " it: text/csv; charset=windows-1252); export the file in one of them.");
        }
        return charset;
    }

    private static <T> T declared(List<Violation> violations, String name, String value, String fallback,
            Function<String, T> reading, String rule) {
        if (value != null && value.isEmpty()) {
            return null; // already named as empty
        }
        T read = reading.apply(value == null ? fallback : value);
        if (read == null) {
            violations.add(new Violation(name, rule));
        }
        return read;
    }

    private static String column(Function<String, String> declared, String name, String fallback) {
        String value = declared.apply(name);
        return (value == null || value.isEmpty() ? fallback : value).toLowerCase(Locale.ROOT);
    }
}
