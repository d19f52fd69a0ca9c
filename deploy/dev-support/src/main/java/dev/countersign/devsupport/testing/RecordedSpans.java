package dev.countersign.devsupport.testing;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import org.awaitility.Awaitility;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;

/**
 * A span exporter for the services' tests: declared as a bean in a service's test sources (a subclass), it replaces the
 * OTLP exporter, so nothing leaves the test JVM, and keeps the last spans in memory, bounded, so a whole suite of
 * traced requests does not pile up.
 */
public class RecordedSpans implements SpanExporter {

    private static final int KEPT = 5_000;

    private final ArrayDeque<SpanData> spans = new ArrayDeque<>();

    @Override
    public synchronized CompletableResultCode export(Collection<SpanData> batch) {
        for (SpanData span : batch) {
            if (spans.size() == KEPT) {
                spans.removeFirst();
            }
            spans.addLast(span);
        }
        return CompletableResultCode.ofSuccess();
    }

    /** The first exported span matching {@code filter}, if it was exported already. */
    public synchronized Optional<SpanData> first(Predicate<SpanData> filter) {
        return spans.stream().filter(filter).findFirst();
    }

    /** The first span matching {@code filter}, waiting up to 10 s for the batch processor to export it. */
    public SpanData await(Predicate<SpanData> filter) {
        return Awaitility.await().alias("a matching span exported").atMost(Duration.ofSeconds(10))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
                .until(() -> first(filter), Optional::isPresent).get();
    }

    public synchronized List<SpanData> matching(Predicate<SpanData> filter) {
        return spans.stream().filter(filter).toList();
    }

    @Override
    public CompletableResultCode flush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
    }
}
