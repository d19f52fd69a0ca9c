package dev.countersign.executor.messaging;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.jboss.logging.Logger;

import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Records of one channel processed several at a time while records with the same key keep their order: each key hashes
 * to one of {@code lanes} lanes ({@link #laneOf}), a lane runs its work one after another in submission order, and
 * lanes run side by side. At most {@code capacity} pieces of work are admitted at once, in all lanes together;
 * {@link #submit} completes when its work is admitted (not when it ends), so a channel that waits for each submit
 * before the next gets back-pressure.
 * <p>
 * Why hand-written: Kafka partitions alone ({@code concurrency} on the channel, a consumer per partition) stop at the
 * topic's partitions (3 on the local broker) and cost a consumer each. SmallRye's own key-ordered processing
 * ({@code throttled.ordered=key}) runs records on worker threads ({@code @Blocking(ordered = false)}), a thread parked
 * per record in flight for work that is non-blocking here; not tried.
 * <p>
 * Limits: records of different keys that share a lane wait for each other (head-of-line), and one stuck record keeps
 * admitting the records behind it in its lane until they hold the whole capacity: then the channel stops taking records
 * until it ends. Per-key order holds only if the caller waits for each submit before the next of the same key (a
 * channel does). Work ends in any order, so the channel must accept acknowledgements out of order (SmallRye's
 * {@code throttled} commit strategy commits an offset only once every record before it was acknowledged); after a crash
 * or a rebalance every record after the last committed offset is processed again, so the work must be idempotent. The
 * work runs on the Vert.x context of its submit (its trace and log fields go with it). Subscribe to a submit's Uni
 * once: each subscription submits the work; cancelled before admission it is withdrawn, after admission it still runs.
 */
public final class KeyedLanes {

    private static final Logger LOG = Logger.getLogger(KeyedLanes.class);

    private final int lanes;
    private final int capacity;
    private final CompletableFuture<?>[] tails;
    private final Queue<Pending> waiting = new ArrayDeque<>();
    private int admitted;

    /**
     * @param lanes
     *            how many keys' work may run at the same time (at least 1; 1 keeps the submission order)
     * @param capacity
     *            how much work may be admitted at once, running or waiting in its lane (at least {@code lanes})
     */
    public KeyedLanes(int lanes, int capacity) {
        if (lanes < 1 || capacity < lanes) {
            throw new IllegalArgumentException("lanes must be at least 1 and capacity at least lanes");
        }
        this.lanes = lanes;
        this.capacity = capacity;
        this.tails = new CompletableFuture<?>[lanes];
        for (int i = 0; i < lanes; i++) {
            tails[i] = CompletableFuture.completedFuture(null);
        }
    }

    /**
     * {@code lanes} lanes admitting twice as much work as they run: each may hold one record behind its running one.
     */
    public static KeyedLanes withLanes(int lanes) {
        return new KeyedLanes(lanes, 2 * lanes);
    }

    /** The lane of {@code key} among {@code lanes}: a null key goes to lane 0. */
    public static int laneOf(String key, int lanes) {
        return Math.floorMod(key == null ? 0 : key.hashCode(), lanes);
    }

    /**
     * Queues {@code work} behind the earlier work of its lane; the returned Uni completes once it is admitted. The work
     * is built when its turn comes; whatever it ends with (item, failure, or an exception thrown while building it)
     * frees its place, and a failure is only logged, so the work must deal with its own (acknowledge or refuse its
     * record).
     */
    public Uni<Void> submit(String key, Supplier<Uni<?>> work) {
        return Uni.createFrom().emitter(admission -> {
            Pending pending = new Pending(key, laneOf(key, lanes), work, Vertx.currentContext(),
                    () -> admission.complete(null));
            CompletableFuture<?> before = null;
            synchronized (this) {
                if (admitted < capacity) {
                    admitted++;
                    before = takeTurn(pending);
                } else {
                    waiting.add(pending);
                }
            }
            admission.onTermination(() -> {
                synchronized (this) {
                    waiting.remove(pending);
                }
            });
            if (before != null) {
                start(pending, before);
            }
        });
    }

    /** Work admitted and not yet ended. */
    public synchronized int inFlight() {
        return admitted;
    }

    /** Makes {@code pending} the last of its lane; returns the work it follows. Under the lock. */
    private CompletableFuture<?> takeTurn(Pending pending) {
        CompletableFuture<?> before = tails[pending.lane];
        tails[pending.lane] = pending.ended;
        return before;
    }

    private void start(Pending pending, CompletableFuture<?> before) {
        pending.admitted.run();
        before.whenComplete((ignored, failure) -> pending.run(() -> {
            pending.ended.complete(null);
            finished();
        }));
    }

    private void finished() {
        Pending next;
        CompletableFuture<?> before = null;
        synchronized (this) {
            next = waiting.poll();
            if (next == null) {
                admitted--;
            } else {
                before = takeTurn(next);
            }
        }
        if (next != null) {
            start(next, before);
        }
    }

    private record Pending(String key, int lane, Supplier<Uni<?>> work, Context context, Runnable admitted,
            CompletableFuture<Void> ended) {

        Pending(String key, int lane, Supplier<Uni<?>> work, Context context, Runnable admitted) {
            this(key, lane, work, context, admitted, new CompletableFuture<>());
        }

        void run(Runnable then) {
            AtomicBoolean done = new AtomicBoolean();
            Runnable once = () -> {
                if (done.compareAndSet(false, true)) {
                    then.run();
                }
            };
            Runnable body = () -> {
                try {
                    Uni<?> uni = work.get();
                    if (uni == null) {
                        throw new IllegalStateException("the work for key " + key + " is null");
                    }
                    uni.subscribe().with(ignored -> once.run(), failure -> {
                        LOG.errorf("Work for key %s ended with a failure it did not handle: %s", key, failure);
                        once.run();
                    });
                } catch (Throwable thrown) {
                    LOG.errorf("Work for key %s could not start: %s", key, thrown);
                    once.run();
                }
            };
            if (context == null) {
                body.run();
            } else {
                context.runOnContext(ignored -> body.run());
            }
        }
    }
}
