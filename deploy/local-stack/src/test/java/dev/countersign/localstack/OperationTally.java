package dev.countersign.localstack;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Every answer of the soak by operation and outcome ({@code 200}, {@code 409 invalid_state_transition}, {@code io
 * error}), the latency of each, and the answers outside what an operation may be told. Thread-safe.
 */
final class OperationTally {

    /** An answer no operation of the soak may get: its operation, outcome and text. */
    record Unexpected(String operation, String outcome, String text) {
    }

    /** The outcome of a proposal the broker acknowledged (acks=all): the Kafka operation's success. */
    static final String ACKED = "acked";
    /** Not an answer: the operation had nothing to work on. */
    static final String SKIPPED = "skipped";

    private final Map<String, Map<String, LongAdder>> counts = new ConcurrentHashMap<>();
    private final Map<String, Queue<Double>> latencies = new ConcurrentHashMap<>();
    private final Queue<Unexpected> unexpected = new ConcurrentLinkedQueue<>();
    private final Map<String, Set<String>> allowed;

    /**
     * @param allowedConflicts
     *            per operation, the outcomes besides a 2xx it may get (e.g. a confirm that lost to a cancel:
     *            {@code 409 invalid_state_transition})
     */
    OperationTally(Map<String, Set<String>> allowedConflicts) {
        this.allowed = allowedConflicts;
    }

    /** The outcome of an HTTP answer: its status, and for an error the problem's {@code code}. */
    static String outcome(Http.Answer answer) {
        if (answer.status() / 100 == 2) {
            return String.valueOf(answer.status());
        }
        JsonNode code = answer.body() == null ? null : answer.body().get("code");
        return answer.status() + (code == null ? "" : " " + code.asText());
    }

    /** Counts {@code outcome} of {@code operation}, and keeps it as unexpected unless a 2xx or allowed. */
    void record(String operation, String outcome, long startedNanos, String text) {
        counts.computeIfAbsent(operation, ignored -> new ConcurrentHashMap<>())
                .computeIfAbsent(outcome, ignored -> new LongAdder()).increment();
        latencies.computeIfAbsent(operation, ignored -> new ConcurrentLinkedQueue<>())
                .add((System.nanoTime() - startedNanos) / 1e6);
        if (!succeeded(outcome) && !allowed.getOrDefault(operation, Set.of()).contains(outcome)) {
            unexpected.add(new Unexpected(operation, outcome, text == null || text.length() < 300
                    ? text
                    : text.substring(0, 300) + "..."));
        }
    }

    /** A 2xx, or a proposal the broker acknowledged. */
    static boolean succeeded(String outcome) {
        return outcome.equals(ACKED) || outcome.length() == 3 && outcome.startsWith("2");
    }

    void record(String operation, Http.Answer answer, long startedNanos) {
        record(operation, outcome(answer), startedNanos, answer.text());
    }

    /** An operation that had nothing to work on when its turn came (nothing staged yet, nothing to undo). */
    void skipped(String operation) {
        counts.computeIfAbsent(operation, ignored -> new ConcurrentHashMap<>())
                .computeIfAbsent(SKIPPED, ignored -> new LongAdder()).increment();
    }

    List<Unexpected> unexpected() {
        return List.copyOf(unexpected);
    }

    /** Answers counted, skips excluded. */
    long answered() {
        return counts.values().stream().flatMap(byOutcome -> byOutcome.entrySet().stream())
                .filter(entry -> !entry.getKey().equals(SKIPPED)).mapToLong(entry -> entry.getValue().sum()).sum();
    }

    /** Outcome counts by operation, sorted by name. */
    Map<String, Map<String, Long>> counts() {
        Map<String, Map<String, Long>> sorted = new TreeMap<>();
        counts.forEach((operation, byOutcome) -> {
            Map<String, Long> outcomes = new TreeMap<>();
            byOutcome.forEach((outcome, count) -> outcomes.put(outcome, count.sum()));
            sorted.put(operation, outcomes);
        });
        return sorted;
    }

    /** The latencies of {@code operation} in milliseconds. */
    List<Double> latencies(String operation) {
        return new ArrayList<>(latencies.getOrDefault(operation, new ConcurrentLinkedQueue<>()));
    }
}
