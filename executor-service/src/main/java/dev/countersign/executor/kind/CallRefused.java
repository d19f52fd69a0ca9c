package dev.countersign.executor.kind;

import dev.countersign.contracts.ErrorCode;

/** The vendor definitely did not act (it refused the request, or it was never sent): the action fails. */
public class CallRefused extends RuntimeException {

    private final ErrorCode code;

    public CallRefused(ErrorCode code, String reason) {
        super(reason, null, false, false);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }

    /** Whether {@code failure} (or a cause of it) is a refused connection: the request never reached the vendor. */
    public static boolean isConnectionRefused(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof java.net.ConnectException) {
                return true;
            }
        }
        return false;
    }
}
