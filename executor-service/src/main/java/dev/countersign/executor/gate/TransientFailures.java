package dev.countersign.executor.gate;

import java.io.IOException;

import io.vertx.pgclient.PgException;

/**
 * Tells a failure worth retrying (the database is away, busy or lost a race) from one that will fail the same way every
 * time (a bug, or data PostgreSQL refuses). Retrying the second kind would block a partition forever.
 */
final class TransientFailures {

    private TransientFailures() {
    }

    static boolean isTransient(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof PgException pg) {
                String state = pg.getSqlState() == null ? "" : pg.getSqlState();
                // 08 connection, 40 serialization/deadlock, 53 resources, 57 operator intervention (shutdown).
                return state.startsWith("08") || state.startsWith("40") || state.startsWith("53")
                        || state.startsWith("57");
            }
            if (cause instanceof IOException || cause.getClass().getName().startsWith("io.vertx")) {
                // Connection refused or closed, pool acquisition timeouts: the client's own failures.
                return true;
            }
        }
        return false;
    }
}
