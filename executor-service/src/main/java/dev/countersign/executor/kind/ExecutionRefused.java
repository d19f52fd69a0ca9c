package dev.countersign.executor.kind;

import dev.countersign.contracts.ErrorCode;

/** An expected reason an action cannot be written (its target is gone, say): the action fails, nothing is applied. */
public class ExecutionRefused extends RuntimeException {

    private final ErrorCode code;

    public ExecutionRefused(ErrorCode code, String reason) {
        super(reason, null, false, false);
        this.code = code;
    }

    /**
     * A refusal a kind's SQL function declared ({@code kind_refuse(code, reason)}); a code that is no {@link ErrorCode}
     * is a fault of the kind, not a refusal: {@link IllegalStateException}, and the transaction fails.
     */
    public static ExecutionRefused declared(String code, String reason) {
        return new ExecutionRefused(ErrorCode.find(code).orElseThrow(() -> new IllegalStateException(
                "A kind's SQL refused with " + code + ", which is no error code; nothing commits")), reason);
    }

    /**
     * What a kind's SQL function's refusal, as the gate's functions answer it ({@code execute_action},
     * {@code undo_action}), means: {@link TargetMoved} when its guarded statement matched no row, else
     * {@link #declared}.
     */
    public static ExecutionRefused ofKind(String code, String reason, boolean moved) {
        return moved ? new TargetMoved(reason) : declared(code, reason);
    }

    public ErrorCode code() {
        return code;
    }
}
