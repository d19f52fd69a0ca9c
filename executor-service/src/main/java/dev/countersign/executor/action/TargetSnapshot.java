package dev.countersign.executor.action;

import com.fasterxml.jackson.databind.JsonNode;

/** The row an action changes, as it was when the action was staged: its version and the fields a person is shown. */
public record TargetSnapshot(long version, JsonNode fields) {
}
