package dev.countersign.executor.gate;

/** An expected reason an action cannot be written (its target is gone, say): the action fails, nothing is applied. */
public class ExecutionRefused extends RuntimeException {

    private final String code;

    public ExecutionRefused(String code, String reason) {
        super(reason, null, false, false);
        this.code = code;
    }

    public String code() {
        return code;
    }
}
