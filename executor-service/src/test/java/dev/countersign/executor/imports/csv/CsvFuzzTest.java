package dev.countersign.executor.imports.csv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import org.apache.commons.csv.QuoteMode;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.catalogue.Violation;

/**
 * Seeded random files, fuzzed like the other inputs: (1) random expenses written by Commons CSV's printer in a random
 * declared format read back as exactly those expenses, the money in skipped by line; (2) those files corrupted at
 * random never make the reader fail, and it answers either rows only or problems that each name a line of the file. A
 * failure names its seed; {@code -Dcsv.fuzz.seed=N} repeats one case.
 */
class CsvFuzzTest {

    private static final int CASES = Integer.getInteger("csv.fuzz.cases", 1500);
    private static final Long ONE_SEED = Long.getLong("csv.fuzz.seed");
    private static final List<String> DATE_FORMATS = List.of("yyyy-MM-dd", "dd/MM/yyyy", "MM/dd/yyyy", "dd.MM.yyyy",
            "d.M.yyyy", "yyyyMMdd", "M/d/yyyy", "yyyy/MM/dd");
    /** Texts a windows-1252 file can carry too: quotes, delimiters, accents, the euro sign. */
    private static final List<String> WORDS = List.of("coffee", "Bäckerei", "café crème", "Smith, J.", "\"quoted\"",
            "a;b", "tab-free\u00A0here", "€ 5", "O'Brien", "naïve", "  spaced", "x", "Straße");

    @Test
    void filesWrittenInAnyDeclaredFormatReadBackAsTheirExpenses() {
        for (long seed : seeds(1)) {
            Random random = new Random(seed);
            Case written = Case.random(random);
            CsvLines.Parsed parsed;
            try {
                parsed = CsvLines.parse(written.bytes, written.declaration, CsvLinesTest.WALLET, CsvLinesTest.KIND,
                        CsvLinesTest.MAX);
            } catch (RuntimeException failure) {
                throw new AssertionError("seed " + seed + ": " + written, failure);
            }
            if (!parsed.violations().isEmpty() || !CsvLinesTest.expenses(parsed).equals(written.expected)
                    || !parsed.skipped().stream().map(line -> line.line()).toList().equals(written.skippedLines)) {
                fail("seed %d: %s%nread %s, skipped %s, violations %s", seed, written, parsed.rows().size(),
                        parsed.skipped(), parsed.violations());
            }
        }
    }

    @Test
    void corruptedFilesAreAnsweredLineByLineAndNeverHalfRead() {
        for (long seed : seeds(2)) {
            Random random = new Random(seed);
            Case written = Case.random(random);
            byte[] corrupted = corrupt(written.bytes, random);
            try {
                CsvLines.Parsed parsed = CsvLines.parse(corrupted, written.declaration, CsvLinesTest.WALLET,
                        CsvLinesTest.KIND, CsvLinesTest.MAX);
                int lines = 1 + lineBreaks(corrupted);
                for (Violation violation : parsed.violations()) {
                    assertThat(violation.field()).matches("file|line [1-9][0-9]*");
                    if (violation.field().startsWith("line ")) {
                        assertThat(Integer.parseInt(violation.field().substring(5))).isLessThanOrEqualTo(lines);
                    }
                }
                parsed.rows().forEach(row -> assertThat(new BigDecimal(row.normalised().get("amount").asText()))
                        .isPositive().isLessThanOrEqualTo(CsvLinesTest.MAX));
            } catch (RuntimeException | AssertionError failure) {
                throw new AssertionError("seed " + seed + ": " + new String(corrupted, StandardCharsets.ISO_8859_1),
                        failure);
            }
        }
    }

    private static List<Long> seeds(long stream) {
        if (ONE_SEED != null) {
            return List.of(ONE_SEED);
        }
        List<Long> seeds = new ArrayList<>();
        Random seedOfSeeds = new Random(stream * 7919);
        for (int i = 0; i < CASES; i++) {
            seeds.add(seedOfSeeds.nextLong());
        }
        return seeds;
    }

    private static byte[] corrupt(byte[] bytes, Random random) {
        List<Byte> out = new ArrayList<>();
        for (byte b : bytes) {
            out.add(b);
        }
        byte[] hostile = {'"', '"', ',', ';', '\t', '\n', '\r', 0, (byte) 0xC3, (byte) 0xFF, (byte) 0x81, '-', '.',
                '9'};
        int edits = 1 + random.nextInt(6);
        for (int i = 0; i < edits && !out.isEmpty(); i++) {
            int at = random.nextInt(out.size());
            switch (random.nextInt(3)) {
                case 0 -> out.set(at, hostile[random.nextInt(hostile.length)]);
                case 1 -> out.add(at, hostile[random.nextInt(hostile.length)]);
                default -> out.remove(at);
            }
        }
        byte[] result = new byte[out.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = out.get(i);
        }
        return result;
    }

    /** CR, LF and CRLF (once): the line breaks a CSV record may end with. */
    private static int lineBreaks(byte[] bytes) {
        int count = 0;
        for (int i = 0; i < bytes.length; i++) {
            count += bytes[i] == '\n' || bytes[i] == '\r' && (i + 1 == bytes.length || bytes[i + 1] != '\n') ? 1 : 0;
        }
        return count;
    }

    /** One random file, its declaration, and what reading it must give. */
    private record Case(byte[] bytes, CsvDeclaration declaration, List<String> expected, List<Integer> skippedLines,
            String description) {

        static Case random(Random random) {
            char delimiter = List.of(',', ';', '\t').get(random.nextInt(3));
            boolean decimalComma = random.nextBoolean();
            String dateFormat = DATE_FORMATS.get(random.nextInt(DATE_FORMATS.size()));
            Charset charset = random.nextBoolean() ? StandardCharsets.UTF_8 : Charset.forName("windows-1252");
            boolean debitAndCredit = random.nextBoolean();
            boolean expensesNegative = !debitAndCredit && random.nextBoolean();
            boolean header = debitAndCredit || random.nextInt(4) > 0;
            List<String> columns = new ArrayList<>(debitAndCredit
                    ? List.of("date", "debit", "credit", "category",
                            "description")
                    : List.of("date", "amount", "category", "description"));
            if (header) {
                columns.add("balance");
                Collections.shuffle(columns, random);
            }
            List<String> names = columns.stream().map(name -> random.nextBoolean()
                    ? name
                    : name.toUpperCase(Locale.ROOT)).toList();
            CSVFormat format = CSVFormat.DEFAULT.builder().setDelimiter(delimiter)
                    .setRecordSeparator(random.nextBoolean() ? "\r\n" : "\n")
                    .setQuoteMode(random.nextBoolean() ? QuoteMode.ALL : QuoteMode.MINIMAL).get();
            List<String> expected = new ArrayList<>();
            List<Integer> skippedLines = new ArrayList<>();
            StringWriter text = new StringWriter();
            int line = 0;
            try (CSVPrinter printer = new CSVPrinter(text, format)) {
                if (header) {
                    printer.printRecord(names);
                    line++;
                }
                int rows = 1 + random.nextInt(12);
                for (int i = 0; i < rows; i++) {
                    if (random.nextInt(8) == 0) {
                        printer.println();
                        line++;
                    }
                    LocalDate date = LocalDate.of(2000, 1, 1).plusDays(random.nextInt(11000));
                    BigDecimal amount = BigDecimal.valueOf(1 + random.nextInt(9_999_999), 2);
                    String category = WORDS.get(random.nextInt(WORDS.size())).strip();
                    String description = random.nextBoolean()
                            ? ""
                            : WORDS.get(random.nextInt(WORDS.size())) + " "
                                    + i;
                    boolean moneyIn = (debitAndCredit || expensesNegative) && random.nextInt(4) == 0;
                    String written = amount(amount, decimalComma, random);
                    List<String> record = new ArrayList<>();
                    for (String column : columns) {
                        record.add(switch (column) {
                            case "date" -> DateTimeFormatter.ofPattern(dateFormat.replace('y', 'u')).format(date);
                            case "amount" -> expensesNegative == moneyIn ? written : "-" + written;
                            case "debit" -> moneyIn ? "" : written;
                            case "credit" -> moneyIn ? written : "";
                            case "category" -> category;
                            case "description" -> description;
                            default -> amount(BigDecimal.valueOf(random.nextInt(1_000_000), 2), decimalComma, random);
                        });
                    }
                    printer.printRecord(record);
                    line++;
                    if (moneyIn) {
                        skippedLines.add(line);
                    } else {
                        expected.add(date + " " + amount.toPlainString() + " " + category
                                + (description.isBlank() ? "" : " " + description.strip()));
                    }
                }
            } catch (IOException impossible) {
                throw new UncheckedIOException(impossible);
            }
            byte[] body = text.toString().getBytes(charset);
            if (charset.equals(StandardCharsets.UTF_8) && random.nextBoolean()) {
                byte[] marked = new byte[body.length + 3];
                marked[0] = (byte) 0xEF;
                marked[1] = (byte) 0xBB;
                marked[2] = (byte) 0xBF;
                System.arraycopy(body, 0, marked, 3, body.length);
                body = marked;
            }
            CsvDeclaration declaration = CsvLinesTest.declaration("charset=" + charset.name()
                    + (header ? ";header=present" : random.nextBoolean() ? ";header=absent" : ""), "delimiter",
                    delimiter == '\t' ? "tab" : String.valueOf(delimiter), "decimal", decimalComma ? "," : ".",
                    "dateFormat", dateFormat, "expenses", expensesNegative ? "negative" : "positive");
            return new Case(body, declaration, expected, skippedLines, "%s %s%n%s".formatted(charset, declaration,
                    text));
        }

        /** {@code amount} with the declared decimal mark, its thousands grouped at random. */
        private static String amount(BigDecimal amount, boolean decimalComma, Random random) {
            String plain = amount.toPlainString();
            String integer = plain.substring(0, plain.indexOf('.'));
            String fraction = plain.substring(plain.indexOf('.') + 1);
            if (random.nextBoolean()) {
                String grouping = List.of(decimalComma ? "." : ",", " ", "\u00A0", "'").get(random.nextInt(4));
                StringBuilder grouped = new StringBuilder(integer);
                for (int at = integer.length() - 3; at > 0; at -= 3) {
                    grouped.insert(at, grouping);
                }
                integer = grouped.toString();
            }
            return integer + (decimalComma ? "," : ".") + fraction;
        }

        @Override
        public String toString() {
            return description;
        }
    }
}
