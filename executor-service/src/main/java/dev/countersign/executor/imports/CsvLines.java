package dev.countersign.executor.imports;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.api.ImportResult;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.catalogue.Violation;
import dev.countersign.contracts.json.Json;

/**
 * Reads bank or receipt lines, {@code date,amount,category,description} (an optional header line starting with
 * {@code date}; no quoting, so a description has no commas), each checked by the catalogue's rules for a new expense
 * and by the import's own amount bound ({@link ImportsConfig#maxRowAmount()}). Either every line is valid or the
 * violations of all invalid lines are returned: an import is all or nothing.
 */
final class CsvLines {

    static final int MAX_LINES = ImportResult.MAX_LINES;
    /** The parameters a line fills, by the names the imported kind must declare ({@link ImportsConfig#kind()}). */
    static final List<String> PARAMS = List.of("walletId", "occurredOn", "amount", "category", "description");
    /** The most problems one answer lists; the rest are counted. */
    static final int MAX_VIOLATIONS = 20;

    private CsvLines() {
    }

    /**
     * @param kind
     *            the catalogue kind each line is checked as ({@link ImportsConfig#kind()})
     * @param maxAmount
     *            the largest amount a row may carry (besides the catalogue's own bound): a larger one is a violation
     */
    static Parsed parse(String csv, UUID walletId, String kind, BigDecimal maxAmount) {
        List<ValidatedParams> rows = new ArrayList<>();
        List<Violation> violations = new ArrayList<>();
        String[] lines = csv == null ? new String[0] : csv.split("\r?\n", MAX_LINES + 3);
        int number = 0;
        int dataLines = 0;
        for (String line : lines) {
            number++;
            String bare = number == 1 ? line.replace("\uFEFF", "") : line;
            if (bare.isBlank() || (number == 1 && bare.strip().toLowerCase(java.util.Locale.ROOT).startsWith("date"))) {
                continue;
            }
            if (++dataLines > MAX_LINES || number > MAX_LINES + 2) {
                return new Parsed(List.of(), List.of(new Violation("file", "has more than %d lines"
                        .formatted(MAX_LINES))));
            }
            String[] fields = bare.split(",", -1);
            if (fields.length < 3 || fields.length > 4) {
                violations.add(new Violation("line " + number, "needs date,amount,category[,description]"));
                continue;
            }
            ObjectNode params = Json.mapper().createObjectNode().put("walletId", walletId.toString())
                    .put("occurredOn", fields[0].strip()).put("amount", fields[1].strip())
                    .put("category", fields[2].strip());
            if (fields.length == 4 && !fields[3].isBlank()) {
                params.put("description", fields[3].strip());
            }
            ValidatedParams validated = ActionCatalogue.validate(kind, params);
            if (validated.isValid()
                    && new BigDecimal(validated.normalised().get("amount").asText()).compareTo(maxAmount) > 0) {
                violations.add(new Violation("line " + number, "amount: must be at most %s in an import; ask the"
                        .formatted(maxAmount.toPlainString()) + " assistant to record a larger expense, for a person to"
                        + " confirm"));
            } else if (validated.isValid()) {
                rows.add(validated);
            } else {
                int line1 = number;
                validated.violations().forEach(v -> violations.add(new Violation("line " + line1, v.toString())));
            }
        }
        return new Parsed(rows, capped(violations));
    }

    private static List<Violation> capped(List<Violation> violations) {
        if (violations.size() <= MAX_VIOLATIONS) {
            return violations;
        }
        List<Violation> first = new ArrayList<>(violations.subList(0, MAX_VIOLATIONS));
        first.add(new Violation("file", "and %d more problems".formatted(violations.size() - MAX_VIOLATIONS)));
        return first;
    }

    record Parsed(List<ValidatedParams> rows, List<Violation> violations) {
    }
}
