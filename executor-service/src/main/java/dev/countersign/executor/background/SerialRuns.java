package dev.countersign.executor.background;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.jboss.logging.Logger;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;

/**
 * One background worker's runs on this instance: never two at once; a request during a run causes one more run after
 * it, and a run that answers {@code true} (it found a whole batch) runs again at once. A failed run is logged and the
 * next request tries again. The notification planner's and sender's loop, and the second-device poller's (OutboxRelay
 * keeps a loop of its own).
 */
public final class SerialRuns {

    private static final Logger LOG = Logger.getLogger(SerialRuns.class);

    private final String what;
    private final Supplier<Uni<Boolean>> run;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean again = new AtomicBoolean();

    /** {@code what} names the work in the log ("Sending notifications"); {@code run} answers whether to run again. */
    public SerialRuns(String what, Supplier<Uni<Boolean>> run) {
        this.what = what;
        this.run = run;
    }

    /** Asks for a run soon. */
    public void request() {
        again.set(true);
        if (running.compareAndSet(false, true)) {
            Infrastructure.getDefaultExecutor().execute(this::drain);
        }
    }

    private void drain() {
        again.set(false);
        run.get().subscribe().with(more -> {
            if (more) {
                again.set(true);
            }
            finish();
        }, failure -> {
            LOG.warnf("%s failed, will retry: %s", what, failure.toString());
            finish();
        });
    }

    private void finish() {
        running.set(false);
        if (again.get() && running.compareAndSet(false, true)) {
            Infrastructure.getDefaultExecutor().execute(this::drain);
        }
    }
}
