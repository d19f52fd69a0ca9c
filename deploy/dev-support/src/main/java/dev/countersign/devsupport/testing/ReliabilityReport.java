package dev.countersign.devsupport.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Where the reliability suites (faults, bad input, soak) put what they tried and what was lost, for the table in
 * docs/reliability.md that {@code deploy/bench/reliability.sh} regenerates. A suite records a scenario's row only after
 * its checks passed, with the counts it measured; a failed scenario leaves no row (and fails the build).
 */
public final class ReliabilityReport {

    /** The module's {@code target/reliability} unless {@code countersign.reliability.dir} names another. */
    private static final Path DIRECTORY = Path.of(System.getProperty("countersign.reliability.dir",
            "target/reliability"));

    private ReliabilityReport() {
    }

    /**
     * One scenario's result.
     *
     * @param suite
     *            the test class
     * @param scenario
     *            what was exercised, in a few words
     * @param fault
     *            the fault injected or the kind of input
     * @param tried
     *            how many operations or inputs the scenario sent
     * @param lost
     *            how many acknowledged operations have no effect or outcome
     * @param doubled
     *            how many took effect more than once
     * @param unexpected
     *            answers outside what the API documents for the situation (a 500, a missing dead letter)
     */
    public record Row(String suite, String scenario, String fault, long tried, long lost, long doubled,
            long unexpected) {
    }

    public static synchronized void record(Row row) {
        String line = String.join("\t", clean(row.suite()), clean(row.scenario()), clean(row.fault()),
                String.valueOf(row.tried()), String.valueOf(row.lost()), String.valueOf(row.doubled()),
                String.valueOf(row.unexpected())) + "\n";
        try {
            Files.createDirectories(DIRECTORY);
            Files.writeString(DIRECTORY.resolve(row.suite() + ".tsv"), line, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not record the reliability row", e);
        }
    }

    /** A table cell: no tabs, line breaks or pipes. */
    private static String clean(String text) {
        return text.replaceAll("[\\t\\r\\n|]", " ");
    }
}
