package dev.countersign.executor;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.devsupport.testing.RecordedSpans;

/** {@link RecordedSpans} as this test application's span exporter bean (it replaces the OTLP exporter in tests). */
@ApplicationScoped
public class TestSpans extends RecordedSpans {
}
