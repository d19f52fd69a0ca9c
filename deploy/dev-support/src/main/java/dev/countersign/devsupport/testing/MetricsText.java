package dev.countersign.devsupport.testing;

import java.util.Arrays;

/** Reads a value out of a Prometheus text exposition ({@code /q/metrics}), for tests that check a metric moved. */
public final class MetricsText {

    private MetricsText() {
    }

    /**
     * The value of the first series {@code name} whose labels include all of {@code labels} (each written as in the
     * exposition, {@code key="value"}); 0 if there is none yet.
     */
    public static double value(String exposition, String name, String... labels) {
        return exposition.lines()
                .filter(line -> line.startsWith(name + "{") || line.startsWith(name + " "))
                .filter(line -> Arrays.stream(labels).allMatch(line::contains))
                .mapToDouble(MetricsText::sampleValue)
                .findFirst().orElse(0);
    }

    /**
     * The sample's value: the number after the labels. With tracing on, a sample may be followed by an exemplar
     * ({@code # {trace_id="..."} value timestamp}), whose numbers are not the sample's.
     */
    private static double sampleValue(String line) {
        int exemplar = line.indexOf(" # {");
        String sample = (exemplar < 0 ? line : line.substring(0, exemplar)).strip();
        return Double.parseDouble(sample.substring(sample.lastIndexOf(' ') + 1));
    }
}
