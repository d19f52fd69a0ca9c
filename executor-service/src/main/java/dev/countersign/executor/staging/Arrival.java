package dev.countersign.executor.staging;

import dev.countersign.contracts.events.ActionProposed;
import io.opentelemetry.context.Context;

/**
 * A proposal as its record arrived, with the trace context the record was consumed in: its staging continues that trace
 * (log lines, the action's stored {@code trace_parent}, the span of an application on arrival) wherever the transaction
 * it is staged in runs.
 *
 * @param trace
 *            the OpenTelemetry context current when the record was handed to staging
 * @param traceParent
 *            that context's W3C {@code traceparent}, or null when there is none (tracing off, untraced record)
 */
record Arrival(ActionProposed proposal, Context trace, String traceParent) {
}
