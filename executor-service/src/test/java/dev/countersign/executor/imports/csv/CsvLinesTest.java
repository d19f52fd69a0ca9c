package dev.countersign.executor.imports.csv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ImportResult.SkippedLine;
import dev.countersign.contracts.catalogue.Violation;
import dev.countersign.web.ProblemException;

/** The CSV formats an import reads, as declared by its uploader, and the per-line answers to bad rows. */
class CsvLinesTest {

    static final String KIND = "ledger.transaction.create";
    static final BigDecimal MAX = new BigDecimal("100000.00");
    static final UUID WALLET = UUID.randomUUID();

    static CsvLines.Parsed parse(String csv, String contentTypeParameters, String... query) {
        return parse(csv.getBytes(StandardCharsets.UTF_8), contentTypeParameters, query);
    }

    static CsvLines.Parsed parse(byte[] csv, String contentTypeParameters, String... query) {
        return CsvLines.parse(csv, declaration(contentTypeParameters, query), WALLET, KIND, MAX);
    }

    /** {@code contentTypeParameters} as {@code charset=x;header=present}; {@code query} as name, value, ... */
    static CsvDeclaration declaration(String contentTypeParameters, String... query) {
        Map<String, String> parameters = new HashMap<>();
        for (String parameter : contentTypeParameters.split(";")) {
            if (!parameter.isBlank()) {
                String[] pair = parameter.split("=", 2);
                parameters.put(pair[0].strip(), pair[1].strip());
            }
        }
        Map<String, String> declared = new HashMap<>();
        for (int i = 0; i < query.length; i += 2) {
            declared.put(query[i], query[i + 1]);
        }
        return CsvDeclaration.of(parameters, declared);
    }

    /** Each stored row as date amount category [description]. */
    static List<String> expenses(CsvLines.Parsed parsed) {
        assertThat(parsed.violations()).as("violations").isEmpty();
        return parsed.rows().stream().map(row -> {
            var params = row.normalised();
            return params.get("occurredOn").asText() + " " + params.get("amount").asText() + " "
                    + params.get("category").asText()
                    + (params.hasNonNull("description") ? " " + params.get("description").asText() : "");
        }).toList();
    }

    @Test
    void quotedFieldsHoldTheDelimiterDoubledQuotesAndLineBreaksAndLaterLinesKeepTheirNumbers() {
        String csv = """
                date,amount,category,description,memo
                2026-11-02,3.20,coffee,"Cafe Nero, Strand",
                2026-11-03,"1,041.50",rent,"The ""big"" one","two
                lines"
                2026-11-04,x,books,,

                2026-11-05,9.99,books,"two
                lines",
                """;

        CsvLines.Parsed parsed = parse(csv, "");

        assertThat(parsed.violations()).containsExactly(
                new Violation("line 5", "amount: 'x' is not an amount with the decimal mark '.'"),
                new Violation("line 7", "description: must not contain control characters"));
        String fixed = csv.replace("2026-11-04,x", "2026-11-04,1").replace("\"two\nlines\",\n", "two lines,\n");
        assertThat(expenses(parse(fixed, ""))).containsExactly("2026-11-02 3.20 coffee Cafe Nero, Strand",
                "2026-11-03 1041.50 rent The \"big\" one", "2026-11-04 1.00 books", "2026-11-05 9.99 books two lines");
    }

    @Test
    void theHeaderRowMapsColumnsByNameInAnyOrderAndOtherColumnsAreIgnored() {
        String csv = """
                Reference, Description ,Category,Amount,Balance,DATE
                R-1,Bakery,groceries,4.10,95.90,2026-11-02
                R-2,,transport,12.00,83.90,2026-11-03
                """;

        assertThat(expenses(parse(csv, ""))).containsExactly("2026-11-02 4.10 groceries Bakery",
                "2026-11-03 12.00 transport");
        assertThat(expenses(parse("Gebucht;Betrag;Art\n02.11.2026;4,10;Essen\n", "header=present", "delimiter",
                ";", "decimal", ",", "dateFormat", "dd.MM.yyyy", "dateColumn", "Gebucht", "amountColumn", "betrag",
                "categoryColumn", "ART"))).containsExactly("2026-11-02 4.10 Essen");
    }

    @Test
    void aGermanBankExportInWindows1252WithSemicolonsDecimalCommasAndDebitAndCreditColumnsIsRead() {
        String export = """
                Buchungstag;Verwendungszweck;Soll;Haben;Kategorie\r
                01.12.2026;"Bäckerei Müller; Filiale 3";4,85;;Lebensmittel\r
                02.12.2026;Gehalt Dezember;;3.250,00;Einkommen\r
                03.12.2026;Miete;1.150,00;;Wohnen\r
                04.12.2026;Café Crème;"-2,40";;Kaffee\r
                """;
        byte[] bytes = export.getBytes(Charset.forName("windows-1252"));

        CsvLines.Parsed parsed = parse(bytes, "charset=windows-1252", "delimiter", ";", "decimal", ",",
                "dateFormat", "dd.MM.yyyy", "dateColumn", "Buchungstag", "debitColumn", "Soll", "creditColumn",
                "Haben", "categoryColumn", "Kategorie", "descriptionColumn", "Verwendungszweck");

        assertThat(expenses(parsed)).containsExactly("2026-12-01 4.85 Lebensmittel Bäckerei Müller; Filiale 3",
                "2026-12-03 1150.00 Wohnen Miete", "2026-12-04 2.40 Kaffee Café Crème");
        assertThat(parsed.skipped()).containsExactly(new SkippedLine(3, "money in (a credit), not an expense"));
        assertThat(parse(bytes, "", "delimiter", ";").violations()).singleElement()
                .satisfies(violation -> assertThat(violation.toString()).startsWith("line 2: holds bytes that are not"
                        + " UTF-8 text; if the file is windows-1252, declare it: text/csv; charset=windows-1252"));
    }

    @Test
    void aTabSeparatedUsExportWithAByteOrderMarkAndNegativeExpensesIsRead() {
        String export = "\uFEFFPosted Date\tPayee\tAmount\r\n11/02/2026\t\"Joe's, Inc.\"\t-1,204.50\r\n"
                + "11/03/2026\tRefund\t20.00\r\n";

        CsvLines.Parsed parsed = parse(export, "header=present", "delimiter", "tab", "dateFormat", "MM/dd/yyyy",
                "expenses", "negative", "dateColumn", "Posted Date", "descriptionColumn", "payee", "category",
                "card");

        assertThat(expenses(parsed)).containsExactly("2026-11-02 1204.50 card Joe's, Inc.");
        assertThat(parsed.skipped()).extracting(SkippedLine::line).containsExactly(3);
        assertThat(parse(export, "header=present", "delimiter", "tab", "dateFormat", "MM/dd/yyyy", "dateColumn",
                "Posted Date", "category", "card").violations()).singleElement()
                .isEqualTo(new Violation("line 2", "amount: must be positive; if the file writes expenses as negative"
                        + " amounts, declare expenses=negative"));
    }

    @Test
    void theDateFormatIsDeclaredNeverGuessed() {
        String csv = "01/02/2026,5.00,coffee\n";

        assertThat(expenses(parse(csv, "", "dateFormat", "dd/MM/yyyy"))).containsExactly("2026-02-01 5.00 coffee");
        assertThat(expenses(parse(csv, "", "dateFormat", "MM/dd/yyyy"))).containsExactly("2026-01-02 5.00 coffee");
        assertThat(parse(csv, "").violations()).containsExactly(
                new Violation("line 1", "date: '01/02/2026' is not a date written yyyy-MM-dd"));
        assertThat(parse("31/02/2026,5.00,coffee\n", "", "dateFormat", "dd/MM/yyyy").violations()).hasSize(1);
        assertThat(expenses(parse("20261130,5.00,coffee\n", "", "dateFormat", "yyyyMMdd")))
                .containsExactly("2026-11-30 5.00 coffee");
    }

    @Test
    void declarationsThatCannotBeReadAreRefusedByNameBeforeAnyRowIsRead() {
        assertThatThrownBy(() -> declaration("", "dateFormat", "dd/MM/yy", "decimal", "x", "delimiter", "|",
                "expenses", "both", "dateformat", "dd/MM/yyyy")).isInstanceOfSatisfying(ProblemException.class,
                        refused -> assertThat(refused.problem().violations()).extracting(Violation::field)
                                .containsExactly(
                                        "dateformat", "delimiter", "dateFormat", "decimal", "expenses"));
        for (String format : List.of("d/M/yyyy/d", "dd/MM", "yyyy-MM-ddTHH", "dMyyyy", "dd/MM-yyyy.", "MM/MM/yyyy")) {
            assertThat(DeclaredDates.of(format)).as(format).isEmpty();
        }
        assertThat(DeclaredDates.of("d.M.yyyy")).isPresent();
        assertThatThrownBy(() -> declaration("header=maybe")).isInstanceOf(ProblemException.class);
        assertThatThrownBy(() -> declaration("charset=utf-16")).isInstanceOfSatisfying(ProblemException.class,
                refused -> assertThat(refused.problem().code()).isEqualTo(ErrorCode.UNSUPPORTED_REQUEST.code()));
    }

    @Test
    void amountsAreGroupedByThousandsOnlyAndTheOtherMarkIsNeverADecimalMark() {
        assertThat(DeclaredAmounts.POINT.read("1,234.56")).contains(new BigDecimal("1234.56"));
        assertThat(DeclaredAmounts.POINT.read("1 234 567")).contains(new BigDecimal("1234567"));
        assertThat(DeclaredAmounts.COMMA.read("1.234.567,8")).contains(new BigDecimal("1234567.8"));
        assertThat(DeclaredAmounts.COMMA.read("1\u202F234,50")).contains(new BigDecimal("1234.50"));
        assertThat(DeclaredAmounts.COMMA.read("-3,5")).contains(new BigDecimal("-3.5"));
        for (String notAnAmount : List.of("1,23", "1,2345.00", "1.234,567.00", "1,234 567", "$5", "5.", ".5",
                "1.2.3", "", "--5", "5-", "1e3", "١٢")) {
            assertThat(DeclaredAmounts.POINT.read(notAnAmount)).as(notAnAmount).isEmpty();
        }
        assertThat(DeclaredAmounts.COMMA.read("1.23")).isEmpty();
    }

    @Test
    void everyBadRowIsNamedByItsLineAndNothingIsKeptFromAFileWithOne() {
        String csv = """
                date,debit,credit,category
                2026-11-02,1.00,,coffee
                2026-11-03,,,coffee
                2026-11-04,2.00,3.00,coffee

                2026-11-06,0,,coffee
                2026-11-07,4.00,,
                2026-13-01,4.00,,coffee
                """;

        CsvLines.Parsed parsed = parse(csv, "");

        assertThat(parsed.violations()).extracting(Violation::field).containsExactly("line 3", "line 4", "line 6",
                "line 7", "line 8");
        assertThat(parse("date,debit,credit,category\n2026-11-07,4.00,,\n", "", "category", "misc").rows())
                .hasSize(1);
    }

    @Test
    void brokenQuotingAndHeadersThatCannotBeMappedAreRefused() {
        assertThat(parse("2026-11-02,1.00,coffee\n2026-11-03,\"2.00,coffee\n2026-11-04,1.00,tea\n", "")
                .violations()).singleElement().satisfies(v -> {
                    assertThat(v.field()).isEqualTo("line 2");
                    assertThat(v.message()).startsWith("the quoting is broken");
                });
        assertThat(parse("2026-11-02,1.00,coffee\n\n2026-11-02,\"1.00\"x,coffee\n", "").violations())
                .singleElement().satisfies(v -> {
                    assertThat(v.field()).isEqualTo("line 3");
                    assertThat(v.message()).startsWith("the quoting is broken");
                });
        assertThat(parse("date,amount,amount,category\n", "").violations()).singleElement()
                .isEqualTo(new Violation("line 1", "the header names the column 'amount' twice"));
        assertThat(parse("date,amount,debit,category\n", "").violations().get(0).message())
                .contains("both an amount column");
        assertThat(parse("date,sum,category\n", "").violations().get(0).message()).contains("no amount column");
        assertThat(parse("date,amount\n", "").violations().get(0).message()).contains("no category column");
        assertThat(parse("when,amount,category\n2026-11-02,1.00,coffee\n", "header=present").violations())
                .singleElement().satisfies(v -> assertThat(v.message()).contains("no date column 'date'"));
    }

    @Test
    void theFileBoundsHoldWhateverTheFormat() {
        assertThat(parse("2026-11-02,1,coffee\n".repeat(1001), "").violations())
                .containsExactly(new Violation("file", "has more than 1000 lines"));
        assertThat(parse("bad\n".repeat(30), "").violations()).hasSize(21).last()
                .isEqualTo(new Violation("file", "and 10 more problems"));
        assertThat(parse("2026-11-02,100000.01,coffee\n", "").violations().get(0).message())
                .startsWith("amount: must be at most 100000.00 in an import");
        assertThat(parse(new byte[]{(byte) 0xFF, (byte) 0xFE, 0x31, 0}, "").violations().get(0).message())
                .contains("UTF-16");
        assertThat(parse(new byte[]{(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, 0x31}, "charset=windows-1252")
                .violations().get(0).message()).contains("byte-order mark");
    }

    @Test
    void aRowThatWouldBeReadFromTheWrongColumnsOrAsAnotherNumberOrDateIsRefused() {
        // An unquoted thousands comma in a comma file: 1 with category "234.50" if the extra cell were ignored.
        assertThat(parse("date,amount,category\n2026-01-02,1,234.50,food\n", "").violations()).singleElement()
                .isEqualTo(new Violation("line 2", "has 4 fields; the header names 3 (a value holding the delimiter"
                        + " must be quoted)"));
        assertThat(expenses(parse("date,amount,category\n2026-01-02,1.50,food,,\n", ""))).containsExactly(
                "2026-01-02 1.50 food");
        assertThat(parse("date,amount,category,description\n2026-01-02,1.50,food\n", "").violations())
                .singleElement().satisfies(v -> assertThat(v.message()).startsWith("has 3 fields; the header names 4"));
        assertThat(parse("date,amount,category\n", "", "categoryColumn", "date").violations()).singleElement()
                .isEqualTo(new Violation("line 1", "two declarations name the same column"));
        for (String year : List.of("01/02/+20260", "01/02/-2026", "01/02/0000", "01/02/20260", "1/02/2026 ")) {
            assertThat(parse(year + ",1.00,food\n", "", "dateFormat", "dd/MM/yyyy").violations()).as(year)
                    .singleElement().satisfies(v -> assertThat(v.message()).startsWith("date:"));
        }
        for (String amount : List.of("0,500", "000,123", "1".repeat(DeclaredAmounts.LONGEST + 1))) {
            assertThat(DeclaredAmounts.POINT.read(amount)).as(amount).isEmpty();
        }
        assertThat(DeclaredAmounts.POINT.read("12,500")).contains(new BigDecimal("12500"));
    }

    @Test
    void aHugeCellOrFileIsRefusedWithoutParsingIt() {
        long started = System.nanoTime();
        assertThat(parse("2026-01-02," + "9".repeat(1_000_000) + ",food\n", "").violations()).singleElement()
                .satisfies(v -> assertThat(v.message()).startsWith("amount: '9999"));
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - started)).isLessThan(java.time.Duration.ofSeconds(2));
        assertThat(parse("\n".repeat(CsvLines.MAX_BYTES + 1), "").violations())
                .containsExactly(new Violation("file", "is larger than 2097152 bytes; split it"));
        assertThat(parse("2026-01-02,1,food\n" + ",".repeat(CsvLines.MOST_DELIMITERS + 1) + "\n", "").violations())
                .containsExactly(new Violation("line 2", "has more than 256 ',' separators"));
    }

    @Test
    void theUploaderSaysWhichMoneyColumnsToReadAndADeclarationIsNeverEmptyOrIgnored() {
        String both = "date,amount,debit,category\n2026-01-02,4.00,9.00,food\n";
        assertThat(expenses(parse(both, "", "amountColumn", "amount"))).containsExactly("2026-01-02 4.00 food");
        assertThat(expenses(parse(both, "", "debitColumn", "debit"))).containsExactly("2026-01-02 9.00 food");
        assertThatThrownBy(() -> declaration("", "amountColumn", "amount", "debitColumn", "debit"))
                .isInstanceOf(ProblemException.class);
        assertThatThrownBy(() -> declaration("", "dateColumn", "")).isInstanceOfSatisfying(ProblemException.class,
                refused -> assertThat(refused.problem().violations()).containsExactly(
                        new Violation("dateColumn", "is empty; leave it out for its default")));
        assertThatThrownBy(() -> declaration("", "delimiter", "")).isInstanceOfSatisfying(ProblemException.class,
                refused -> assertThat(refused.problem().violations()).containsExactly(
                        new Violation("delimiter", "is empty; leave it out for its default")));
        assertThat(parse("date,debit,credit,category\n2026-01-02,4.00,,food\n", "", "expenses", "negative")
                .violations()).singleElement().satisfies(v -> assertThat(v.message()).startsWith("expenses=negative"));
    }
}
