package dev.countersign.executor.lifecycle;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.json.Json;

/** The result recorded for an action that did not (or may not) carry out: {@code {"error": code, "reason": ...}}. */
public final class ActionResults {

    private ActionResults() {
    }

    public static ObjectNode error(ErrorCode code, String reason) {
        return Json.mapper().createObjectNode().put("error", code.code()).put("reason", reason);
    }
}
