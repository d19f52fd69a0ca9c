package dev.countersign.localstack;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What the {@code *Benchmark} classes share: proposals built as the agent builds them, the machine's state (cores, load
 * average, CPU time per process), percentiles, and the result block printed to stdout and written to
 * {@code target/bench/<name>.txt}. The benchmarks print numbers; they assert only that the work was done.
 */
final class BenchmarkSupport {

    private BenchmarkSupport() {
    }

    /**
     * An expense in {@code wallet} ({@link ExpenseProposal}). Amounts stay under the default high-impact threshold
     * (500.00), so the action is LOW: with {@code ACTIONS_AGENT_WRITES_DEFAULT=staged_only} it waits for a
     * confirmation.
     */
    static ExpenseProposal expense(String tenant, String user, UUID wallet, int i) {
        return ExpenseProposal.of(tenant, user, wallet, BigDecimal.valueOf(100 + i % 40_000, 2), "coffee",
                "bench " + i, "bench-" + i % 50);
    }

    /** A producer configured like the agent's proposals channel: acks=all, the client's other defaults. */
    static KafkaProducer<String, String> agentLikeProducer(String bootstrapServers) {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer());
    }

    static long count(LocalStack stack, String sql, Object... parameters) throws SQLException {
        try (Connection owner = stack.ownerConnection(); var query = owner.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                query.setObject(i + 1, parameters[i]);
            }
            try (var rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    /**
     * Polls {@code condition} every 200 ms until it holds; false if {@code timeout} passed first (a benchmark reports a
     * drain that did not finish rather than failing on it).
     */
    static boolean awaitUntil(Duration timeout, BooleanSupplier condition) {
        try {
            await().atMost(timeout).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(200))
                    .until(condition::getAsBoolean);
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }

    /** {@link #count}, for conditions: a database error counts as "not yet". */
    static long countQuietly(LocalStack stack, String sql, Object... parameters) {
        try {
            return count(stack, sql, parameters);
        } catch (SQLException e) {
            return -1;
        }
    }

    /** The nearest-rank percentile {@code p} (0-100) of sorted values; NaN if there are none. */
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static double[] sorted(List<Double> values) {
        double[] array = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(array);
        return array;
    }

    /** "p50 1.2 p90 3.4 p99 5.6 max 7.8 ms (n=...)" of values in milliseconds. */
    static String distribution(List<Double> millis) {
        double[] sorted = sorted(millis);
        return "p50 %7.1f  p90 %7.1f  p99 %7.1f  max %7.1f ms  (n=%d)".formatted(percentile(sorted, 50),
                percentile(sorted, 90), percentile(sorted, 99),
                sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1], sorted.length);
    }

    /**
     * Each running service's resident memory now (VmRSS) and how long Quarkus took to start each service the first time
     * (the first "started in" line of its log): "executor-service 212 MiB, agent-service 180 MiB; started in:
     * executor-service 3.9 s, agent-service 4.0 s". The target is under 300 MB each after a load run.
     */
    static String footprint(LocalStack stack) {
        List<String> memory = new ArrayList<>();
        stack.servicePids().forEach((name, pid) -> {
            long kib = RssSampler.rssKiB(pid);
            if (kib >= 0) {
                memory.add("%s %d MiB".formatted(name, kib / 1024));
            }
        });
        List<String> started = new ArrayList<>();
        for (String module : List.of("executor-service", "agent-service")) {
            Path log = stack.settings().logDirectory().resolve(module + ".log");
            try (var lines = Files.lines(log)) {
                lines.map(STARTED_IN::matcher).filter(java.util.regex.Matcher::find).findFirst()
                        .ifPresent(found -> started.add("%s %s s".formatted(module, found.group(1))));
            } catch (IOException | java.io.UncheckedIOException e) {
                started.add(module + " unknown (" + e.getMessage() + ")");
            }
        }
        return "RSS %s; started in: %s".formatted(String.join(", ", memory), String.join(", ", started));
    }

    private static final java.util.regex.Pattern STARTED_IN = java.util.regex.Pattern.compile(
            "started in ([0-9.]+)s");

    /** The 1, 5 and 15 minute load averages, as /proc/loadavg shows them. */
    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + " " + fields[1] + " " + fields[2] + " (1, 5, 15 min)";
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    static String machine() {
        String cpu = "unknown CPU";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).trim()).findFirst().orElse(cpu);
        } catch (IOException e) {
            // keep "unknown"
        }
        return "nproc %d (%s), Java %s".formatted(Runtime.getRuntime().availableProcessors(), cpu,
                System.getProperty("java.version"));
    }

    /**
     * CPU time of the parts of the stack, from /proc (Linux): the executor and agent JVMs (children of this JVM), the
     * PostgreSQL server (its postmaster and every backend), this JVM (benchmark client, Kafka broker, launcher), and
     * the whole machine, so that other work on the machine shows as "everything else".
     */
    static final class CpuMeter {

        private static final long TICKS_PER_SECOND = ticksPerSecond();

        private final Map<String, List<Long>> parts = new LinkedHashMap<>();
        private final Path postmasterPid;

        /**
         * A snapshot: CPU seconds per part, per thread group of the JVMs (thread names without their numbers), and the
         * machine's busy and total CPU seconds (all cores).
         */
        record Sample(long nanos, Map<String, Double> seconds, Map<String, Map<String, Double>> threads,
                double machineBusy, double machineTotal) {
        }

        CpuMeter(Path postgresDataDirectory) {
            this.postmasterPid = postgresDataDirectory.resolve("postmaster.pid");
            parts.put("executor-service JVM", pidsOf("executor-service"));
            parts.put("agent-service JVM", pidsOf("agent-service"));
            parts.put("this JVM (client, Kafka broker)", List.of(ProcessHandle.current().pid()));
        }

        private static List<Long> pidsOf(String module) {
            return ProcessHandle.current().descendants()
                    .filter(process -> cmdline(process.pid()).contains("/" + module + "/target/"))
                    .map(ProcessHandle::pid).toList();
        }

        Sample sample() {
            Map<String, Double> seconds = new LinkedHashMap<>();
            parts.forEach((name, pids) -> seconds.put(name,
                    pids.stream().mapToLong(pid -> ticks(pid, false)).sum() / (double) TICKS_PER_SECOND));
            seconds.put("PostgreSQL (all backends)", postgresTicks() / (double) TICKS_PER_SECOND);
            Map<String, Map<String, Double>> threads = new LinkedHashMap<>();
            parts.forEach((name, pids) -> {
                Map<String, Double> groups = new java.util.TreeMap<>();
                for (long pid : pids) {
                    threadTicks(pid).forEach((group, ticks) -> groups.merge(group,
                            ticks / (double) TICKS_PER_SECOND, Double::sum));
                }
                threads.put(name, groups);
            });
            double[] machine = machineTicks();
            return new Sample(System.nanoTime(), seconds, threads, machine[0] / TICKS_PER_SECOND,
                    machine[1] / TICKS_PER_SECOND);
        }

        /** The {@code top} thread groups of {@code part} by CPU between two samples: "name 1.23 s, ...". */
        static String topThreads(Sample from, Sample to, String part, int top) {
            Map<String, Double> before = from.threads().getOrDefault(part, Map.of());
            return to.threads().getOrDefault(part, Map.of()).entrySet().stream()
                    .map(entry -> Map.entry(entry.getKey(),
                            entry.getValue() - before.getOrDefault(entry.getKey(), 0.0)))
                    .sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(top)
                    .map(entry -> "%s %.2f s".formatted(entry.getKey(), entry.getValue()))
                    .collect(java.util.stream.Collectors.joining(", "));
        }

        /** utime + stime per thread name (as /proc shows it, 15 characters at most, digits dropped), in ticks. */
        private static Map<String, Long> threadTicks(long pid) {
            Map<String, Long> groups = new java.util.HashMap<>();
            try (var tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
                for (Path task : tasks.toList()) {
                    try {
                        String name = Files.readString(task.resolve("comm")).trim().replaceAll("\\d+", "#");
                        String[] stat = stat(pid, task.getFileName().toString());
                        if (stat != null) {
                            groups.merge(name, Long.parseLong(stat[11]) + Long.parseLong(stat[12]), Long::sum);
                        }
                    } catch (IOException | RuntimeException e) {
                        // the thread ended meanwhile
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
            return groups;
        }

        /** Lines "part: x.xx CPU-s (y% of one core), z ms per unit" between two samples. */
        static List<String> describe(Sample from, Sample to, long units, String unit) {
            List<String> lines = new ArrayList<>();
            double wall = (to.nanos() - from.nanos()) / 1e9;
            double ours = 0;
            for (var entry : to.seconds().entrySet()) {
                double used = entry.getValue() - from.seconds().getOrDefault(entry.getKey(), 0.0);
                ours += used;
                lines.add(line(entry.getKey(), used, wall, units, unit));
            }
            double busy = to.machineBusy() - from.machineBusy();
            lines.add(line("everything else on the machine", Math.max(0, busy - ours), wall, units, unit));
            for (String part : to.threads().keySet()) {
                String top = topThreads(from, to, part, 5);
                if (!top.isEmpty() && !part.startsWith("agent")) {
                    lines.add("  %s threads: %s".formatted(part, top));
                }
            }
            lines.add("machine: %.0f%% of %d cores busy over %.1f s".formatted(100 * busyShare(from, to),
                    Runtime.getRuntime().availableProcessors(), wall));
            return lines;
        }

        /** The machine's busy share of all its cores between two samples (0 to 1). */
        static double busyShare(Sample from, Sample to) {
            return (to.machineBusy() - from.machineBusy()) / (to.machineTotal() - from.machineTotal());
        }

        private static String line(String name, double used, double wall, long units, String unit) {
            return "%-34s %6.2f CPU-s  %5.0f%% of a core  %6.2f ms per %s".formatted(name, used,
                    100 * used / wall, units == 0 ? Double.NaN : 1000 * used / units, unit);
        }

        private long postgresTicks() {
            long postmaster;
            try {
                postmaster = Long.parseLong(Files.readAllLines(postmasterPid).get(0).trim());
            } catch (IOException | RuntimeException e) {
                return 0;
            }
            // The postmaster's own time, its reaped children's (cutime, cstime), and each live backend's.
            long total = ticks(postmaster, true);
            try (var entries = Files.list(Path.of("/proc"))) {
                for (Path entry : entries.toList()) {
                    String name = entry.getFileName().toString();
                    if (name.chars().allMatch(Character::isDigit)) {
                        String[] stat = stat(Long.parseLong(name));
                        if (stat != null && Long.parseLong(stat[1]) == postmaster) {
                            total += ticks(Long.parseLong(name), false);
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return total;
        }

        /** utime + stime (+ cutime + cstime) of a process, in clock ticks; 0 if it is gone. */
        private static long ticks(long pid, boolean withReapedChildren) {
            String[] stat = stat(pid);
            if (stat == null) {
                return 0;
            }
            // Index i is field i + 3 of proc(5): ppid is field 4, utime 14, stime 15, cutime 16, cstime 17.
            long ticks = Long.parseLong(stat[11]) + Long.parseLong(stat[12]);
            return withReapedChildren ? ticks + Long.parseLong(stat[13]) + Long.parseLong(stat[14]) : ticks;
        }

        /** The fields of /proc/pid/stat after "(comm)", so that a command with spaces cannot shift them. */
        private static String[] stat(long pid) {
            return stat(pid, null);
        }

        private static String[] stat(long pid, String thread) {
            try {
                Path process = Path.of("/proc", String.valueOf(pid));
                String text = Files.readString(thread == null
                        ? process.resolve("stat")
                        : process.resolve("task").resolve(thread).resolve("stat"));
                return text.substring(text.lastIndexOf(')') + 2).trim().split("\\s+");
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }

        private static String cmdline(long pid) {
            try {
                return Files.readString(Path.of("/proc", String.valueOf(pid), "cmdline")).replace('\0', ' ');
            } catch (IOException | RuntimeException e) {
                return "";
            }
        }

        /** {busy, total} ticks of all cores since boot, from the first line of /proc/stat. */
        private static double[] machineTicks() {
            try {
                String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
                long total = 0;
                for (int i = 1; i < Math.min(cpu.length, 9); i++) {
                    total += Long.parseLong(cpu[i]);
                }
                long idle = Long.parseLong(cpu[4]) + Long.parseLong(cpu[5]);
                return new double[]{total - idle, total};
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static long ticksPerSecond() {
            try {
                Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
                String out = new String(getconf.getInputStream().readAllBytes()).trim();
                getconf.waitFor();
                return Long.parseLong(out);
            } catch (IOException | RuntimeException e) {
                return 100;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 100;
            }
        }
    }

    /** The labelled result block: printed to stdout and written to {@code target/bench/<name>.txt}. */
    static final class Report {

        private final String name;
        private final StringBuilder text = new StringBuilder();

        Report(String name) {
            this.name = name;
        }

        Report line(String format, Object... args) {
            text.append(args.length == 0 ? format : format.formatted(args)).append('\n');
            return this;
        }

        Path publish() throws IOException {
            String block = "\n===== " + name + " =====\n" + text + "===== end of " + name + " =====\n";
            System.out.print(block);
            Path file = Path.of("target", "bench", name + ".txt");
            Files.createDirectories(file.getParent());
            Files.writeString(file, block);
            System.out.println("(written to " + file.toAbsolutePath() + ")");
            return file;
        }
    }
}
