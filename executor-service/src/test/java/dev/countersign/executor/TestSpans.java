package dev.countersign.executor;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;

import jakarta.enterprise.context.ApplicationScoped;

import org.awaitility.Awaitility;

import dev.countersign.devsupport.testing.RecordedSpans;
import io.opentelemetry.sdk.trace.data.SpanData;

/** The spans this test application exported (a SpanExporter bean replaces the OTLP exporter in tests). */
@ApplicationScoped
public class TestSpans extends RecordedSpans {

    /** The first span matching {@code filter}, waiting up to 10 s for the batch processor to export it. */
    public SpanData await(Predicate<SpanData> filter) {
        return Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> first(filter), Optional::isPresent)
                .orElseThrow();
    }
}
