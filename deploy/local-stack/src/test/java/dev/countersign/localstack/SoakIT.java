package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.ReliabilityReport;

/**
 * "Load held" (issue 19): a sustained mixed load on two executor instances and one agent ({@link SoakMix}: chat turns
 * that propose, proposals on Kafka, confirms, cancels, a confirm racing a cancel, undos, reads on both services) at a
 * steady rate, then: no answer but a 2xx or a documented 409 ({@link SoakMix#ALLOWED_CONFLICTS}), nothing lost or
 * doubled ({@link ExactlyOnceCheck}), and each service's resident memory flat after the warm-up ({@link RssSampler}).
 * <p>
 * Parameters (system properties): {@code soak.duration} (ISO-8601, default {@code PT60S}, the CI version; the 10-minute
 * soak is {@code deploy/bench/soak.sh}), {@code soak.warmup} (default {@code PT20S}: samples before it are not judged,
 * the JIT compiles and the heaps grow to their working size), {@code soak.rate} (operation slots per second, default
 * 10). The result block goes to stdout and {@code target/bench/SoakIT.txt}.
 * <p>
 * "Flat": the median RSS of the last quarter of the samples after the warm-up may exceed the median of the first
 * quarter by at most {@link #RSS_GROWTH_TOLERANCE_MIB} MiB. An absolute bound rather than a percentage: a leak at this
 * load (a few hundred actions a minute) shows as a steady climb of tens of MiB over ten minutes whatever the base,
 * while a JVM's RSS moves by up to about 20 MiB between samples as G1 commits and uncommits heap regions and the JIT
 * fills the code cache; medians of a quarter each damp single GCs. 40 MiB is about 15% of a service's RSS here. Each
 * service's peak is printed against the product target of {@link #RSS_TARGET_MIB} MiB, not asserted: a memory target is
 * a benchmark's number (issue 21 works on it); flatness, the sign of a leak, is what this test holds.
 * <p>
 * Memory is judged only when the window after the warm-up is at least {@link #MEMORY_WINDOW} (the 10-minute soak);
 * shorter runs, the CI version among them, print the numbers and do not judge them. Measured: in the first minute under
 * load each service's RSS climbs from about 210 to 275-350 MiB as G1 grows the heap towards its working size (the stack
 * runs them with {@code -Xmx384m}), so a one-minute window sees heap sizing, not a leak, and would fail every run.
 * <p>
 * The CI version runs on the stack other classes share ({@link SharedStacks}) with a tenant of its own: the services
 * are warm from earlier classes, which a one-minute run that judges no memory does not mind; the 10-minute soak starts
 * its own stack ({@code deploy/bench/soak.sh} runs this class alone).
 * <p>
 * Limits: one machine shared with other builds (latencies and the rate achieved are noisy and only reported); the demo
 * model (a chat turn's model calls cost microseconds, not a real model's seconds); no faults during the soak (the crash
 * tests do that); latency is measured from the moment a client thread sends, and a slot that finds every client thread
 * busy is missed (counted, reported) rather than queued, so an overloaded machine lowers the rate achieved. A short run
 * shows a climb, not a slow leak: only the 10-minute soak says much about memory.
 */
@ResourceLock(SharedStacks.LOCK)
class SoakIT {

    private static final Duration DURATION = Duration.parse(System.getProperty("soak.duration", "PT60S"));
    private static final Duration WARMUP = Duration.parse(System.getProperty("soak.warmup", "PT20S"));
    private static final double RATE = Double.parseDouble(System.getProperty("soak.rate", "10"));
    /** Enough to keep the rate with a chat turn or a racing pair in flight; few, as a handful of users would be. */
    private static final int CLIENT_THREADS = 8;
    private static final Duration RSS_INTERVAL = Duration.ofSeconds(2);
    static final long RSS_GROWTH_TOLERANCE_MIB = 40;
    static final long RSS_TARGET_MIB = 300;
    /** The shortest window after the warm-up whose RSS is judged (see the class comment). */
    static final Duration MEMORY_WINDOW = Duration.ofMinutes(4);
    private static final Duration SETTLE = Duration.ofSeconds(90);

    /** Whether this run is long enough to judge memory: the 10-minute soak is, the CI version is not. */
    static boolean judgesMemory() {
        return DURATION.minus(WARMUP).compareTo(MEMORY_WINDOW) >= 0;
    }

    @Test
    void aSustainedMixedLoadOnTwoExecutorsAnswersOnlyDocumentedConflictsLosesNothingAndHoldsMemoryFlat()
            throws Exception {
        long stackStarted = System.nanoTime();
        LocalStack stack = SharedStacks.twoExecutors();
        try (KafkaProducer<String, String> producer = StackAccess.producer(stack.bootstrapServers())) {
            // Near zero when an earlier class started the shared stack.
            double stackSeconds = (System.nanoTime() - stackStarted) / 1e9;
            String tenant = "soak-" + UUID.randomUUID();
            UUID wallet;
            try (Connection owner = stack.ownerConnection()) {
                wallet = DemoData.createWallet(owner, tenant, "alice", "Checking", "EUR");
            }
            String loadAtStart = BenchmarkSupport.loadAverage();
            OperationTally tally = new OperationTally(SoakMix.ALLOWED_CONFLICTS);
            ExecutorService clients = Executors.newFixedThreadPool(CLIENT_THREADS);
            ExecutorService secondLegs = Executors.newFixedThreadPool(2);
            ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
            SoakMix mix = new SoakMix(stack, tenant, wallet, producer, secondLegs, tally);
            // A slot finding every client thread busy is missed, not queued: the load stays at the rate the stack
            // keeps up with, rather than a backlog that would outlast the run.
            Semaphore freeClients = new Semaphore(CLIENT_THREADS);
            AtomicLong missed = new AtomicLong();

            long period = (long) (1e9 / RATE);
            AtomicLong slots = new AtomicLong();
            CountDownLatch over = new CountDownLatch(1);
            long loadStarted;
            long loadEnded;
            try (RssSampler rss = new RssSampler(stack::servicePids, RSS_INTERVAL)) {
                loadStarted = System.nanoTime();
                pacer.scheduleAtFixedRate(() -> {
                    long slot = slots.getAndIncrement();
                    if (!freeClients.tryAcquire()) {
                        missed.incrementAndGet();
                        return;
                    }
                    clients.submit(() -> {
                        try {
                            runSlot(mix, slot, tally);
                        } finally {
                            freeClients.release();
                        }
                    });
                }, 0, period, TimeUnit.NANOSECONDS);
                pacer.schedule(over::countDown, DURATION.toNanos(), TimeUnit.NANOSECONDS);
                over.await();
                pacer.shutdownNow();
                clients.shutdown();
                assertThat(clients.awaitTermination(2, TimeUnit.MINUTES)).as("the clients finished").isTrue();
                loadEnded = System.nanoTime();
                secondLegs.shutdown();
                producer.flush();

                // --- settle: everything proposed staged (or rejected), nothing mid-execution, every event relayed ---
                Map<UUID, SoakMix.Known> known = mix.known();
                long settleStarted = System.nanoTime();
                await().atMost(SETTLE).pollInterval(Duration.ofMillis(500)).until(() -> settled(stack, tenant, known));
                double settleSeconds = (System.nanoTime() - settleStarted) / 1e9;

                ExactlyOnceCheck.Findings findings;
                try (Connection owner = stack.ownerConnection()) {
                    findings = ExactlyOnceCheck.check(owner, tenant, wallet, known);
                }
                List<RssSampler.Growth> growth = rss.growthSince(WARMUP.toNanos() / 1e9);
                SoakReport.publish(new SoakReport.Run(DURATION, WARMUP, RATE, CLIENT_THREADS, stackSeconds,
                        (loadEnded - loadStarted) / 1e9, settleSeconds, slots.get(), missed.get(),
                        loadAtStart, BenchmarkSupport.loadAverage()), tally, findings, growth,
                        rss.samples());

                assertThat(tally.unexpected()).as("answers other than a 2xx or a documented 409").isEmpty();
                assertThat(findings.violations()).as("actions lost, doubled or not as answered").isEmpty();
                assertThat(tally.counts()).as("every kind of operation succeeded at least once")
                        .allSatisfy((operation, outcomes) -> assertThat(outcomes.keySet())
                                .as(operation).anyMatch(OperationTally::succeeded));
                ReliabilityReport.record(new ReliabilityReport.Row(SoakIT.class.getSimpleName(),
                        "mixed load on two executors for %s (%d executed, %d undone)".formatted(DURATION,
                                findings.statuses().getOrDefault("executed", 0),
                                findings.statuses().getOrDefault("undone", 0)),
                        "%.0f operations/s of proposals, chat turns, confirms, cancels, undos, reads".formatted(RATE),
                        // A violation is an action lost, doubled or not as answered; the check does not tell
                        // them apart, so each column counts them all (zero here: asserted above).
                        slots.get() - missed.get(), findings.violations().size(), findings.violations().size(),
                        tally.unexpected().size()));
                if (!judgesMemory()) {
                    System.out.printf("SoakIT: RSS reported, not judged: %s after the warm-up is under %s%n",
                            DURATION.minus(WARMUP), MEMORY_WINDOW);
                    return;
                }
                for (RssSampler.Growth service : growth) {
                    assertThat(service.samples()).as("RSS samples of %s after the warm-up", service.service())
                            .isGreaterThanOrEqualTo(4);
                    assertThat(service.grownKiB()).as("RSS growth of %s after the warm-up, KiB", service.service())
                            .isLessThanOrEqualTo(RSS_GROWTH_TOLERANCE_MIB * 1024);
                }
            } finally {
                pacer.shutdownNow();
                clients.shutdownNow();
                secondLegs.shutdownNow();
            }
        }
    }

    /** One slot of the mix; a fault of the test itself counts as an unexpected answer. */
    private static void runSlot(SoakMix mix, long slot, OperationTally tally) {
        long started = System.nanoTime();
        try {
            mix.run(slot);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException fault) {
            tally.record("test client fault", fault.toString(), started, String.valueOf(fault.getMessage()));
        }
    }

    /**
     * Every acknowledged proposal is an action or rejected, no action is between confirmed and its outcome, and the
     * outbox has nothing left to relay.
     */
    private static boolean settled(LocalStack stack, String tenant, Map<UUID, SoakMix.Known> known) throws Exception {
        try (Connection owner = stack.ownerConnection();
                var query = owner.prepareStatement("""
                        SELECT (SELECT count(*) FROM unnest(?::uuid[]) AS k(id) WHERE NOT EXISTS
                                   (SELECT 1 FROM actions a WHERE a.id = k.id)
                                 AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.tenant_id = ?
                                   AND o.message_key = k.id::text AND o.payload::jsonb ->> 'type' = 'ActionRejected')),
                               (SELECT count(*) FROM actions WHERE tenant_id = ? AND status = 'confirmed'),
                               (SELECT count(*) FROM outbox WHERE tenant_id = ? AND published_at IS NULL)""")) {
            query.setArray(1, owner.createArrayOf("uuid", known.keySet().toArray()));
            query.setString(2, tenant);
            query.setString(3, tenant);
            query.setString(4, tenant);
            try (var rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1) == 0 && rows.getLong(2) == 0 && rows.getLong(3) == 0;
            }
        }
    }
}
