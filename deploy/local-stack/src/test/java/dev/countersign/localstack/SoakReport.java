package dev.countersign.localstack;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The soak's result block: printed, and written to {@code target/bench/SoakIT.txt} like the benchmarks'. */
final class SoakReport {

    /** The run's parameters and times, in seconds. */
    record Run(Duration duration, Duration warmup, double rate, int clients, double stackSeconds, double loadSeconds,
            double settleSeconds, long slots, long missedSlots, String loadAverageAtStart, String loadAverageAtEnd) {
    }

    private SoakReport() {
    }

    static void publish(Run run, OperationTally tally, ExactlyOnceCheck.Findings findings,
            List<RssSampler.Growth> growth, Map<String, List<RssSampler.Sample>> samples) throws IOException {
        BenchmarkSupport.Report report = new BenchmarkSupport.Report("SoakIT");
        report.line("machine: %s", BenchmarkSupport.machine());
        report.line("load average: %s at the start of the load, %s at the end", run.loadAverageAtStart(),
                run.loadAverageAtEnd());
        report.line("parameters: duration %s, warm-up %s, %.1f slots/s, %d client threads; 2 executors, 1 agent,"
                + " demo model", run.duration(), run.warmup(), run.rate(), run.clients());
        report.line("stack up in %.1f s; load ran %.1f s (%d slots, %d of them missed: every client thread busy);"
                + " settled %.1f s after the load", run.stackSeconds(), run.loadSeconds(), run.slots(),
                run.missedSlots(), run.settleSeconds());
        report.line("answers: %d in all, %.1f/s", tally.answered(), tally.answered() / run.loadSeconds());
        report.line("");
        report.line("%-28s %-44s %7s  %s", "operation", "outcomes", "per s", "latency");
        tally.counts().forEach((operation, outcomes) -> {
            long answered = outcomes.entrySet().stream().filter(entry -> !entry.getKey().equals(OperationTally.SKIPPED))
                    .mapToLong(Map.Entry::getValue).sum();
            report.line("%-28s %-44s %7.2f  %s", operation, outcomes.entrySet().stream()
                    .map(entry -> entry.getValue() + " x " + entry.getKey()).collect(Collectors.joining(", ")),
                    answered / run.loadSeconds(), BenchmarkSupport.distribution(tally.latencies(operation)));
        });
        report.line("unexpected answers: %d%s", tally.unexpected().size(), tally.unexpected().isEmpty()
                ? ""
                : " (first: " + tally.unexpected().get(0) + ")");
        report.line("");
        report.line("actions by status after settling: %s; rejected proposals: %d", findings.statuses(),
                findings.rejected());
        report.line("wallet balance %s, executed and not undone sum to %s; violations: %d%s", findings.balance(),
                findings.expectedBalance(), findings.violations().size(), findings.violations().isEmpty()
                        ? ""
                        : " (first: " + findings.violations().get(0) + ")");
        report.line("");
        report.line("RSS after the warm-up, MiB (median of the first quarter of samples, of the last, growth; peak;"
                + " tolerance %d MiB growth, target < %d MiB; %s):", SoakIT.RSS_GROWTH_TOLERANCE_MIB,
                SoakIT.RSS_TARGET_MIB, SoakIT.judgesMemory()
                        ? "judged"
                        : "NOT judged: the window after the warm-up is under " + SoakIT.MEMORY_WINDOW);
        for (RssSampler.Growth service : growth) {
            report.line("  %-20s %6.1f -> %6.1f  %+6.1f (%+.1f%%)  peak %6.1f  (%d samples)", service.service(),
                    mib(service.firstKiB()), mib(service.lastKiB()), mib(service.grownKiB()),
                    100 * service.grownFraction(), mib(service.peakKiB()), service.samples());
        }
        report.line("RSS over the whole load, MiB, about ten points each:");
        samples.forEach((service, list) -> {
            int step = Math.max(1, list.size() / 10);
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < list.size(); i += step) {
                line.append("%.0fs:%.0f ".formatted(list.get(i).atSeconds(), mib(list.get(i).rssKiB())));
            }
            RssSampler.Sample last = list.get(list.size() - 1);
            line.append("end %.0fs:%.0f".formatted(last.atSeconds(), mib(last.rssKiB())));
            report.line("  %-20s %s", service, line);
        });
        report.publish();
    }

    private static double mib(long kib) {
        return kib / 1024.0;
    }
}
