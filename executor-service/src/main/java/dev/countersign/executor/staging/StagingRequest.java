package dev.countersign.executor.staging;

import dev.countersign.contracts.events.ActionProposed;

/**
 * A proposal whose evidence was checked, ready to stage, with the trace it arrived in: a batch is staged on one
 * record's context, so each proposal's trace is read on its own ({@link StagingService#request}).
 *
 * @param traceParent
 *            the W3C {@code traceparent} of the proposal's record, or null when it came untraced
 * @param mcpClient
 *            the MCP client its verified evidence names (an MCP call's), or null: such a proposal is never marked
 *            clean, whatever the agent marked, and applies on arrival only for a kind its tenant opted in
 */
public record StagingRequest(ActionProposed proposal, String traceParent, String mcpClient) {

    public boolean throughMcp() {
        return mcpClient != null;
    }
}
