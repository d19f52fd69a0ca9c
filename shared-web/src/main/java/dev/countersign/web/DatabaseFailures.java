package dev.countersign.web;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.core.JacksonException;

import io.vertx.core.VertxException;
import io.vertx.core.impl.NoStackTraceTimeoutException;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;

/**
 * Tells PostgreSQL being away (the environment: refused or broken connections, a server shutting down or starting, too
 * many connections, a read-only standby after a failover, timeouts) from an error about the request or its data. The
 * one place for that rule: the HTTP layer answers the first with 503 and {@code Retry-After}, the consumers retry it.
 * <p>
 * Limit: a timeout is counted as the database being away although a slow query times out the same way; a query that is
 * slow every time would be answered 503 every time rather than 500.
 */
public final class DatabaseFailures {

    private DatabaseFailures() {
    }

    /** True if {@code failure} (or a cause) says the database cannot be reached or cannot serve now. */
    public static boolean isUnavailable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof PgException pg) {
                return isUnavailableState(pg.getSqlState());
            }
        }
        return isConnectionFailure(failure);
    }

    /**
     * True if the client never reached PostgreSQL or lost it: connection refused, reset or closed, a pool or connect
     * timeout. A plain {@link VertxException} is how the client reports a connection closed under it; a reset comes as
     * a bare {@link IOException} from the socket. Limit: any I/O error counts, so one from another connection (an
     * external send's) that escaped its own handling would be answered 503 too, and its consumer would retry it.
     */
    public static boolean isConnectionFailure(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (isSocketFailure(cause) || cause instanceof TimeoutException
                    || cause instanceof NoStackTraceTimeoutException
                    || cause instanceof ClosedConnectionException || cause.getClass() == VertxException.class) {
                return true;
            }
        }
        return false;
    }

    /** An I/O error of a connection; not Jackson's exceptions, which are I/O exceptions about unreadable text. */
    private static boolean isSocketFailure(Throwable cause) {
        return cause instanceof IOException && !(cause instanceof JacksonException);
    }

    /**
     * 08 connection exception, 53 insufficient resources, 57P01 to 57P03 (shutting down, crashed, cannot connect now),
     * 25006 (a read-only standby after a failover). Not 40001/40P01: those are retried as a whole transaction.
     */
    private static boolean isUnavailableState(String state) {
        return state != null && (state.startsWith("08") || state.startsWith("53") || state.startsWith("57P")
                || "25006".equals(state));
    }
}
