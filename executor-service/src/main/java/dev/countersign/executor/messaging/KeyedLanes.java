package dev.countersign.executor.messaging;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Records of one channel processed several at a time while records with the same key keep their order: each key hashes
 * to one of {@code lanes} lanes, a lane runs its work one after another in arrival order, and lanes run side by side.
 * At most {@code lanes x perLane} pieces of work are admitted at once; {@link #submit} completes when its work is
 * admitted (not when it ends), so a channel that waits for it gets back-pressure.
 * <p>
 * Why not Kafka partitions alone ({@code concurrency} on the channel, one consumer per partition): parallelism would
 * stop at the topic's partitions (3 on the local broker) and cost a consumer each; an HTTP confirm has as many in
 * flight as the pool allows.
 * <p>
 * Limits: records of different keys that share a lane wait for each other (head-of-line), so one slow record slows its
 * lane. Work ends in any order, so the channel must accept acknowledgements out of order (SmallRye's {@code throttled}
 * commit strategy commits an offset only once every record before it was acknowledged); after a crash or a rebalance
 * every record after the last committed offset is processed again, so the work must be idempotent. The work runs on the
 * Vert.x context of its submit (its trace and log fields go with it).
 */
public final class KeyedLanes {

    private final int lanes;
    private final int capacity;
    private final CompletableFuture<?>[] tails;
    private final Queue<Pending> waiting = new ArrayDeque<>();
    private int admitted;

    /**
     * @param lanes
     *            how many keys' work may run at the same time (at least 1; 1 keeps the channel's order)
     * @param perLane
     *            how much work may wait in each lane behind the running one, plus one (at least 1)
     */
    public KeyedLanes(int lanes, int perLane) {
        if (lanes < 1 || perLane < 1) {
            throw new IllegalArgumentException("lanes and perLane must be at least 1");
        }
        this.lanes = lanes;
        this.capacity = lanes * perLane;
        this.tails = new CompletableFuture<?>[lanes];
        for (int i = 0; i < lanes; i++) {
            tails[i] = CompletableFuture.completedFuture(null);
        }
    }

    /**
     * Queues {@code work} behind the earlier work of its lane; the returned Uni completes once it is admitted. The work
     * is built when its turn comes; whatever it ends with (item, failure, or an exception thrown while building it)
     * frees its place and is otherwise ignored, so the work must deal with its own failures (acknowledge or refuse its
     * record).
     */
    public Uni<Void> submit(String key, Supplier<Uni<?>> work) {
        return Uni.createFrom().emitter(admission -> {
            Pending pending = new Pending(lane(key), work, Vertx.currentContext(), () -> admission.complete(null));
            boolean now;
            synchronized (this) {
                now = admitted < capacity;
                if (now) {
                    admitted++;
                } else {
                    waiting.add(pending);
                }
            }
            if (now) {
                start(pending);
            }
        });
    }

    /** Work admitted and not yet ended; for tests and metrics. */
    public synchronized int inFlight() {
        return admitted;
    }

    private int lane(String key) {
        return Math.floorMod(key == null ? 0 : key.hashCode(), lanes);
    }

    private void start(Pending pending) {
        CompletableFuture<Void> ended = new CompletableFuture<>();
        CompletableFuture<?> before;
        synchronized (this) {
            before = tails[pending.lane];
            tails[pending.lane] = ended;
        }
        pending.admitted.run();
        before.whenComplete((ignored, failure) -> pending.run(() -> {
            ended.complete(null);
            finished();
        }));
    }

    private void finished() {
        List<Pending> next = new ArrayList<>(1);
        synchronized (this) {
            Pending pending = waiting.poll();
            if (pending == null) {
                admitted--;
            } else {
                next.add(pending);
            }
        }
        next.forEach(this::start);
    }

    private record Pending(int lane, Supplier<Uni<?>> work, Context context, Runnable admitted) {

        void run(Runnable then) {
            Runnable body = () -> {
                Uni<?> uni;
                try {
                    uni = work.get();
                } catch (RuntimeException e) {
                    uni = Uni.createFrom().failure(e);
                }
                uni.subscribe().with(ignored -> then.run(), failure -> then.run());
            };
            if (context == null) {
                body.run();
            } else {
                context.runOnContext(ignored -> body.run());
            }
        }
    }
}
