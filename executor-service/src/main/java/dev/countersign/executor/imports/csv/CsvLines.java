package dev.countersign.executor.imports.csv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.api.ImportResult;
import dev.countersign.contracts.api.ImportResult.SkippedLine;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.catalogue.Violation;
import dev.countersign.contracts.json.Json;

/**
 * Reads an uploaded CSV of bank or receipt lines as its uploader declared it ({@link CsvDeclaration}), with Commons CSV
 * (RFC 4180 quoting: a field in double quotes may hold the delimiter, line breaks and doubled quotes). Each row is
 * checked by the catalogue's rules for a new expense and by the import's own amount bound. Either every row is valid or
 * the violations of all invalid rows are returned, each with the line it starts on: an import is all or nothing. Rows
 * of money in (a credit, or a positive amount where expenses are negative) are not expenses: they are skipped and
 * reported, never stored.
 */
public final class CsvLines {

    public static final int MAX_LINES = ImportResult.MAX_LINES;
    /** The parameters a line fills, by the names the imported kind must declare. */
    public static final List<String> PARAMS = List.of("walletId", "occurredOn", "amount", "category", "description");
    /** The most problems one answer lists; the rest are counted. */
    static final int MAX_VIOLATIONS = 20;
    private static final String POSITIONAL = "date,amount,category[,description]";
    /**
     * The largest file read: a thousand rows of a bank export are well under it, and it bounds the work of one upload
     * whatever its rows hold.
     */
    public static final int MAX_BYTES = 2 * 1024 * 1024;
    /** The most delimiters one line may hold (quoted ones included). */
    static final int MOST_DELIMITERS = 256;

    private CsvLines() {
    }

    /**
     * @param kind
     *            the catalogue kind each row is checked as
     * @param maxAmount
     *            the largest amount a row may carry (besides the catalogue's own bound): a larger one is a violation
     */
    public static Parsed parse(byte[] body, CsvDeclaration declared, UUID walletId, String kind,
            BigDecimal maxAmount) {
        if (body != null && body.length > MAX_BYTES) {
            return Parsed.refused(new Violation("file", "is larger than %d bytes; split it".formatted(MAX_BYTES)));
        }
        DecodedText.Decoded decoded = DecodedText.decode(body == null ? new byte[0] : body, declared.charset());
        if (decoded.refusal() != null) {
            return Parsed.refused(decoded.refusal());
        }
        DecodedText text = decoded.text();
        Violation tooWide = tooWide(text.text(), declared.delimiter());
        if (tooWide != null) {
            return Parsed.refused(tooWide);
        }
        CSVFormat format = CSVFormat.RFC4180.builder().setDelimiter(declared.delimiter()).setIgnoreEmptyLines(true)
                .setIgnoreSurroundingSpaces(true).get();
        Rows rows = new Rows(declared, walletId, kind, maxAmount);
        try (CSVParser parser = CSVParser.parse(text.text(), format)) {
            Iterator<CSVRecord> records = parser.iterator();
            Columns columns = null;
            int dataRows = 0;
            while (hasNext(records, text.nextFilledLine(parser.getCurrentLineNumber()), rows)) {
                CSVRecord record = records.next();
                int line = text.lineOf(record.getCharacterPosition());
                if (isBlank(record)) {
                    continue;
                }
                if (columns == null) {
                    columns = Columns.of(record, line, declared, rows.violations);
                    if (columns == null) {
                        return Parsed.refused(rows.violations.get(0));
                    }
                    if (columns.fromHeader()) {
                        continue;
                    }
                }
                if (++dataRows > MAX_LINES) {
                    return Parsed.refused(new Violation("file", "has more than %d lines".formatted(MAX_LINES)));
                }
                rows.add(line, record, columns);
            }
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
        return new Parsed(rows.valid, rows.skipped, capped(rows.violations));
    }

    /**
     * Commons CSV reports broken quoting (a quote never closed, text after a closing quote) from the iterator; that
     * ends the reading, as nothing after it can be split reliably, and is the file's last violation.
     */
    private static boolean hasNext(Iterator<CSVRecord> records, int nextLine, Rows rows) {
        try {
            return records.hasNext();
        } catch (UncheckedIOException broken) {
            rows.violations.add(new Violation("line " + nextLine, "the quoting is"
                    + " broken: a field that opens a double quote must close it, followed by the delimiter or the"
                    + " line's end, and a quote inside it is written twice (\"\")"));
            return false;
        }
    }

    /**
     * The first line with more than {@value #MOST_DELIMITERS} delimiters: no bank export has that many columns, and
     * Commons CSV would hold each of a million empty cells as an object (a 2 MiB line of commas costs 30 to 60 times
     * its size).
     */
    private static Violation tooWide(String text, char delimiter) {
        int line = 1;
        int delimiters = 0;
        for (int i = 0; i < text.length(); i++) {
            if (DecodedText.endsLine(text, i)) {
                line++;
                delimiters = 0;
            } else if (text.charAt(i) == delimiter && ++delimiters > MOST_DELIMITERS) {
                return new Violation("line " + line, "has more than %d '%s' separators".formatted(MOST_DELIMITERS,
                        delimiter == '\t' ? "tab" : String.valueOf(delimiter)));
            }
        }
        return null;
    }

    private static boolean isBlank(CSVRecord record) {
        return record.stream().allMatch(String::isBlank);
    }

    private static List<Violation> capped(List<Violation> violations) {
        if (violations.size() <= MAX_VIOLATIONS) {
            return violations;
        }
        List<Violation> first = new ArrayList<>(violations.subList(0, MAX_VIOLATIONS));
        first.add(new Violation("file", "and %d more problems".formatted(violations.size() - MAX_VIOLATIONS)));
        return first;
    }

    /**
     * Where each value is in a row: named by the header row, or by position ({@value #POSITIONAL}) in a file without
     * one. {@code -1} for a column the file does not have.
     */
    private record Columns(boolean fromHeader, int date, int amount, int debit, int credit, int category,
            int description, int width) {

        static Columns of(CSVRecord first, int line, CsvDeclaration declared, List<Violation> violations) {
            List<String> names = first.stream().map(name -> name.strip().toLowerCase(Locale.ROOT)).toList();
            CsvDeclaration.Columns named = declared.columns();
            boolean header = switch (declared.header()) {
                case PRESENT -> true;
                case ABSENT -> false;
                case DETECT -> names.contains(named.date());
            };
            if (!header) {
                return new Columns(false, 0, 1, -1, -1, 2, 3, 4);
            }
            String where = "line " + line;
            for (String name : List.of(named.date(), named.amount(), named.debit(), named.credit(), named.category(),
                    named.description())) {
                if (names.indexOf(name) != names.lastIndexOf(name)) {
                    violations.add(new Violation(where, "the header names the column '%s' twice".formatted(name)));
                    return null;
                }
            }
            boolean amountColumn = named.read() != CsvDeclaration.Read.DEBIT_AND_CREDIT;
            boolean debitColumns = named.read() != CsvDeclaration.Read.AMOUNT;
            Columns columns = new Columns(true, names.indexOf(named.date()),
                    amountColumn ? names.indexOf(named.amount()) : -1, debitColumns ? names.indexOf(named.debit()) : -1,
                    debitColumns ? names.indexOf(named.credit()) : -1, names.indexOf(named.category()),
                    names.indexOf(named.description()), names.size());
            List<Integer> used = java.util.stream.IntStream.of(columns.date, columns.amount, columns.debit,
                    columns.credit, columns.category, columns.description).filter(index -> index >= 0).boxed().toList();
            if (used.size() != used.stream().distinct().count()) {
                violations.add(new Violation(where, "two declarations name the same column"));
                return null;
            }
            String problem = columns.unreadable(named, declared);
            if (problem != null) {
                violations.add(new Violation(where, problem));
                return null;
            }
            return columns;
        }

        /** Why rows cannot be read with these columns, or null when they can. */
        String unreadable(CsvDeclaration.Columns named, CsvDeclaration declared) {
            if (date < 0) {
                return "the header names no date column '%s' (declare dateColumn=...)".formatted(named.date());
            }
            if (amount >= 0 && debit >= 0) {
                return "the header names both an amount column '%s' and a debit column '%s'; declare amountColumn or"
                        .formatted(named.amount(), named.debit()) + " debitColumn to say which to read";
            }
            if (amount < 0 && debit < 0) {
                return "the header names no amount column '%s' and no debit column '%s' (declare amountColumn=..."
                        .formatted(named.amount(), named.debit()) + " or debitColumn=...)";
            }
            if (category < 0 && declared.category().isEmpty()) {
                return "the header names no category column '%s'; declare categoryColumn=... or category=... for"
                        .formatted(named.category()) + " every row";
            }
            if (debit >= 0 && declared.expensesNegative()) {
                return "expenses=negative reads an amount column; this file's money is in debit and credit columns";
            }
            return null;
        }
    }

    /** The rows read so far: the valid ones, the skipped ones and the violations. */
    private static final class Rows {

        final List<ValidatedParams> valid = new ArrayList<>();
        final List<SkippedLine> skipped = new ArrayList<>();
        final List<Violation> violations = new ArrayList<>();
        private final CsvDeclaration declared;
        private final UUID walletId;
        private final String kind;
        private final BigDecimal maxAmount;

        Rows(CsvDeclaration declared, UUID walletId, String kind, BigDecimal maxAmount) {
            this.declared = declared;
            this.walletId = walletId;
            this.kind = kind;
            this.maxAmount = maxAmount;
        }

        void add(int line, CSVRecord record, Columns columns) {
            String where = "line " + line;
            if (!columns.fromHeader() && (record.size() < (declared.category().isPresent() ? 2 : 3)
                    || record.size() > columns.width())) {
                violations.add(new Violation(where, "needs " + POSITIONAL));
                return;
            }
            // Each row has the header's cells (RFC 4180): more is an unquoted delimiter inside a value (1,234.50 in a
            // comma file) with every cell after it read from the wrong column, fewer a row cut short. Empty trailing
            // cells are only a trailing delimiter. An unquoted delimiter that a missing optional cell makes up for
            // cannot be seen (docs/security/imports.md).
            if (columns.fromHeader() && (record.size() < columns.width() || record.size() > columns.width()
                    && record.stream().skip(columns.width()).anyMatch(cell -> !cell.isBlank()))) {
                violations.add(new Violation(where, "has %d fields; the header names %d (a value holding the delimiter"
                        .formatted(record.size(), columns.width()) + " must be quoted)"));
                return;
            }
            int before = violations.size();
            String date = cell(record, columns.date);
            String occurredOn = declared.dates().read(date).map(Object::toString).orElse(null);
            if (occurredOn == null) {
                violations.add(new Violation(where, "date: '%s' is not a date written %s".formatted(shown(date),
                        declared.dates())));
            }
            Amount amount = columns.amount >= 0
                    ? signed(cell(record, columns.amount))
                    : debitOrCredit(cell(record, columns.debit), cell(record, columns.credit));
            if (amount.problem() != null) {
                violations.add(new Violation(where, amount.problem()));
            }
            if (violations.size() > before) {
                return;
            }
            if (amount.skipped() != null) {
                skipped.add(new SkippedLine(line, amount.skipped()));
                return;
            }
            ObjectNode params = Json.mapper().createObjectNode().put("walletId", walletId.toString())
                    .put("occurredOn", occurredOn).put("amount", amount.expense().toPlainString());
            String category = cell(record, columns.category);
            params.put("category", category.isEmpty() ? declared.category().orElse("") : category);
            String description = cell(record, columns.description);
            if (!description.isEmpty()) {
                params.put("description", description);
            }
            ValidatedParams validated = ActionCatalogue.validate(kind, params);
            if (!validated.isValid()) {
                validated.violations().forEach(v -> violations.add(new Violation(where, v.toString())));
            } else if (new BigDecimal(validated.normalised().get("amount").asText()).compareTo(maxAmount) > 0) {
                violations.add(new Violation(where, "amount: must be at most %s in an import; ask the assistant to"
                        .formatted(maxAmount.toPlainString()) + " record a larger expense, for a person to confirm"));
            } else {
                valid.add(validated);
            }
        }

        /** An amount column: an expense is positive, or negative where the import declares expenses=negative. */
        private Amount signed(String cell) {
            BigDecimal value = declared.amounts().read(cell).orElse(null);
            if (value == null) {
                return Amount.problem(notAnAmount("amount", cell));
            }
            if (value.signum() == 0) {
                return Amount.problem("amount: 0 is not an expense");
            }
            if (declared.expensesNegative()) {
                return value.signum() < 0
                        ? Amount.expense(value.negate())
                        : Amount.skipped("money in (a positive amount where expenses are negative), not an expense");
            }
            return value.signum() > 0
                    ? Amount.expense(value)
                    : Amount.problem("amount: must be positive; if the"
                            + " file writes expenses as negative amounts, declare expenses=negative");
        }

        /** Debit and credit columns: money out is an expense (its sign ignored), money in is skipped. */
        private Amount debitOrCredit(String debit, String credit) {
            boolean out = !debit.isEmpty();
            boolean in = !credit.isEmpty();
            if (out && in) {
                return Amount.problem("fills both the debit and the credit column; one row is one movement");
            }
            if (!out && !in) {
                return Amount.problem("fills neither the debit nor the credit column");
            }
            String cell = out ? debit : credit;
            BigDecimal value = declared.amounts().read(cell).orElse(null);
            if (value == null) {
                return Amount.problem(notAnAmount(out ? "debit" : "credit", cell));
            }
            if (value.signum() == 0) {
                return Amount.problem((out ? "debit" : "credit") + ": 0 is not a movement");
            }
            return out ? Amount.expense(value.abs()) : Amount.skipped("money in (a credit), not an expense");
        }

        private String notAnAmount(String column, String cell) {
            return "%s: '%s' is not an amount with the decimal mark '%s'".formatted(column, shown(cell),
                    declared.amounts().mark());
        }

        private static String cell(CSVRecord record, int index) {
            return index < 0 || index >= record.size() ? "" : record.get(index).strip();
        }

        /** A cell as an answer repeats it: at most 40 characters. */
        private static String shown(String cell) {
            return cell.length() > 40 ? cell.substring(0, 40) + "..." : cell;
        }
    }

    /** What a row's amount cells say: an expense, a skipped movement, or a problem. */
    private record Amount(BigDecimal expense, String skipped, String problem) {

        static Amount expense(BigDecimal expense) {
            return new Amount(expense, null, null);
        }

        static Amount skipped(String why) {
            return new Amount(null, why, null);
        }

        static Amount problem(String problem) {
            return new Amount(null, null, problem);
        }
    }

    /** The rows to store, the lines skipped as money in, and every problem (capped) that refuses the file. */
    public record Parsed(List<ValidatedParams> rows, List<SkippedLine> skipped, List<Violation> violations) {

        static Parsed refused(Violation violation) {
            return new Parsed(List.of(), List.of(), List.of(violation));
        }
    }
}
