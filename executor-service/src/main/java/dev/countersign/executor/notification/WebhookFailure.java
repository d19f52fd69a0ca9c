package dev.countersign.executor.notification;

import java.net.ConnectException;
import java.util.concurrent.TimeoutException;

/**
 * A webhook that answered something other than 2xx, and how any failed webhook send is told in the log and the
 * notification's row: by its kind only, never an exception's message, which for a timeout or a refused request may
 * repeat the URL's path (a Slack webhook's path is its credential).
 */
final class WebhookFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    WebhookFailure(int status) {
        super("the webhook answered " + status, null, false, false);
    }

    /**
     * What went wrong, without the URL: the answer's status, a timeout, a refused connection, or the failure's type.
     */
    static String describe(Throwable failure) {
        if (failure instanceof WebhookFailure answered) {
            return answered.getMessage();
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof TimeoutException || cause.getClass().getSimpleName().contains("Timeout")) {
                return "the webhook did not answer in time";
            }
            if (cause instanceof ConnectException) {
                return "the webhook's host refused or did not take the connection";
            }
        }
        return "the webhook send failed (" + failure.getClass().getName() + ")";
    }
}
