package dev.countersign.executor.db;

import java.time.Duration;

import org.jboss.logging.Logger;

import dev.countersign.web.DatabaseFailures;
import io.smallrye.mutiny.Uni;
import io.vertx.pgclient.PgException;

/**
 * Tells a failure that says something about the data (PostgreSQL refuses this very proposal, and would every time) from
 * one that says something about the environment (the database is away, read-only after a failover, rejects our
 * password, times out). The first must not block the records behind it; the second is retried for as long as it lasts,
 * because dead-lettering valid proposals during an outage would lose them from the user's point of view.
 */
public final class TransientFailures {

    private TransientFailures() {
    }

    /**
     * Retries {@code work} with back-off (100 ms to 5 s) for as long as its failures are transient, logging each; a
     * failure that is not transient passes through at once.
     */
    public static <T> Uni<T> retryWhileTransient(Uni<T> work, Logger log, String what) {
        return work
                .onFailure(TransientFailures::isTransient)
                .invoke(failure -> log.warnf("%s failed, retrying: %s", what, failure.getMessage()))
                .onFailure(TransientFailures::isTransient).retry()
                .withBackOff(Duration.ofMillis(100), Duration.ofSeconds(5)).indefinitely();
    }

    /** A deadlock PostgreSQL broke (40P01) or a serialization failure (40001): the whole transaction may be rerun. */
    public static boolean isDeadlockOrSerialization(Throwable failure) {
        return failure instanceof PgException pg
                && ("40P01".equals(pg.getSqlState()) || "40001".equals(pg.getSqlState()));
    }

    public static boolean isTransient(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof PgException pg) {
                String state = pg.getSqlState() == null ? "" : pg.getSqlState();
                // 22 data exception, 23 integrity constraint violation: this record's data; P0 (a PL/pgSQL RAISE) and
                // CS (Countersign's own states, such as a kind's write that answered nothing): SQL refusing the same
                // way on every run, a kind's own included. Anything else is the environment (08 connection, 28
                // authorization, 25006 read-only, 40 serialization, 53, 55, 57 ...).
                return !(state.startsWith("22") || state.startsWith("23") || state.startsWith("P0")
                        || state.startsWith("CS"));
            }
        }
        // Not PostgreSQL speaking: connection refused or closed, pool timeouts. Anything else (a bug in this code)
        // is not retried: it would fail the same way forever and stall the partition.
        return DatabaseFailures.isConnectionFailure(failure);
    }
}
