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
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst().orElse(0);
    }
}
