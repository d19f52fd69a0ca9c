package dev.countersign.executor.api;

import java.util.UUID;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.web.ProblemException;

final class ActionIds {

    private ActionIds() {
    }

    /** A malformed id answers like an unknown one: 404, never a parse error that reveals the id format rules. */
    static UUID parse(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new ProblemException(ErrorCode.ACTION_NOT_FOUND, "No such action in your tenant.");
        }
    }
}
