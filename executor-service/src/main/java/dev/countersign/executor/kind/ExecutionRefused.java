package dev.countersign.executor.kind;

import dev.countersign.contracts.ErrorCode;

/** An expected reason an action cannot be written (its target is gone, say): the action fails, nothing is applied. */
public class ExecutionRefused extends RuntimeException {

    private final ErrorCode code;

    public ExecutionRefused(ErrorCode code, String reason) {
        super(reason, null, false, false);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
