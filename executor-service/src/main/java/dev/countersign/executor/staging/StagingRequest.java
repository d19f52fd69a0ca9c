package dev.countersign.executor.staging;

import dev.countersign.contracts.events.ActionProposed;

/**
 * A proposal whose evidence was checked, ready to stage, with the trace it arrived in: a batch is staged on one
 * record's context, so each proposal's trace is read on its own ({@link StagingService#request}).
 *
 * @param traceParent
 *            the W3C {@code traceparent} of the proposal's record, or null when it came untraced
 * @param throughMcp
 *            its evidence is an MCP call's: it never applies on arrival, whatever the agent marked
 */
public record StagingRequest(ActionProposed proposal, String traceParent, boolean throughMcp) {
}
