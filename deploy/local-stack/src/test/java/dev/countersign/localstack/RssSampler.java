package dev.countersign.localstack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Samples the resident set size (VmRSS in /proc/&lt;pid&gt;/status) of each service JVM at a fixed interval, each
 * sample marked with its time since the sampler started. Linux only. RSS is what the machine pays for a process (heap
 * the JVM took from the OS, metaspace, code cache, thread stacks, direct buffers), not what its heap holds live: a JVM
 * keeps heap it grew into, so RSS shows a leak only as a steady climb, and only once the heap has grown to its working
 * size.
 */
final class RssSampler implements AutoCloseable {

    /** One reading of one process. */
    record Sample(double atSeconds, long rssKiB) {
    }

    /**
     * The growth of one service between two windows of its samples: the median of each, so a single GC or a burst of
     * allocations does not decide it.
     */
    record Growth(String service, long firstKiB, long lastKiB, long peakKiB, int samples) {

        long grownKiB() {
            return lastKiB - firstKiB;
        }

        double grownFraction() {
            return firstKiB == 0 ? Double.NaN : (double) grownKiB() / firstKiB;
        }
    }

    private final Supplier<Map<String, Long>> pids;
    private final Map<String, List<Sample>> samples = new LinkedHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "rss-sampler");
        thread.setDaemon(true);
        return thread;
    });
    private final long startedNanos = System.nanoTime();

    /**
     * @param pids
     *            the current process id of each service by name, asked at every sample (a restart changes it)
     */
    RssSampler(Supplier<Map<String, Long>> pids, Duration interval) {
        this.pids = pids;
        timer.scheduleAtFixedRate(this::sample, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private synchronized void sample() {
        double at = (System.nanoTime() - startedNanos) / 1e9;
        pids.get().forEach((service, pid) -> {
            long rss = rssKiB(pid);
            if (rss > 0) {
                samples.computeIfAbsent(service, ignored -> new ArrayList<>()).add(new Sample(at, rss));
            }
        });
    }

    /** VmRSS of {@code pid} in KiB, or -1 if the process is gone or the line is missing. */
    static long rssKiB(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // gone, or not Linux
        }
        return -1;
    }

    /** Every sample so far, by service. */
    synchronized Map<String, List<Sample>> samples() {
        Map<String, List<Sample>> copy = new LinkedHashMap<>();
        samples.forEach((service, list) -> copy.put(service, List.copyOf(list)));
        return copy;
    }

    /**
     * Per service, the median of the first quarter of the samples taken from {@code fromSeconds} (the end of the
     * warm-up) against the median of the last quarter, and the peak over all of them.
     */
    synchronized List<Growth> growthSince(double fromSeconds) {
        List<Growth> growth = new ArrayList<>();
        samples.forEach((service, list) -> {
            List<Long> after = list.stream().filter(sample -> sample.atSeconds() >= fromSeconds)
                    .map(Sample::rssKiB).toList();
            int quarter = Math.max(1, after.size() / 4);
            if (after.isEmpty()) {
                growth.add(new Growth(service, 0, 0, 0, 0));
                return;
            }
            growth.add(new Growth(service, median(after.subList(0, quarter)),
                    median(after.subList(after.size() - quarter, after.size())),
                    after.stream().mapToLong(Long::longValue).max().orElse(0), after.size()));
        });
        return growth;
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
