package dev.countersign.executor.messaging;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Group commit: items submitted while the work's transactions are all busy wait, and the next free transaction takes
 * the oldest waiting item with every other waiting item of the same group (up to {@code batchSize}, in the order they
 * were submitted) and runs them as one batch. No timer: an item submitted while a transaction is free starts at once,
 * alone; batches form only from what waits, so they grow with the load.
 * <p>
 * Each item's Uni ends with its batch: the answer at its index, or the batch's failure (the caller decides what to do
 * with it, e.g. run the item again alone). It completes on the Vert.x context it was submitted on, if any.
 * <p>
 * Limits: at most {@code transactions} batches run at once, and a group's items may be in two at once; items of one
 * group keep their order within a batch, and across batches only if the caller submits an item after the one before it
 * ended (as {@link KeyedLanes} does per key). An item waits while the oldest waiting items belong to other groups and
 * every transaction is busy (no fairness beyond arrival order). Cancelling an item's Uni withdraws it only while it
 * waits. No timeout: a batch whose work never ends holds its transaction for good, and once every transaction is held
 * so, nothing else runs (the work must bound itself).
 *
 * @param <I>
 *            an item
 * @param <O>
 *            what the work answers for one item
 */
public final class GroupCommit<I, O> {

    private final int transactions;
    private final int batchSize;
    private final Function<I, Object> groupOf;
    private final Function<List<I>, Uni<List<O>>> work;
    private final Deque<Waiting<I, O>> waiting = new ArrayDeque<>();
    private int running;

    /**
     * @param transactions
     *            how many batches may run at once (at least 1)
     * @param batchSize
     *            the most items in one batch (at least 1)
     * @param groupOf
     *            the group an item belongs to: a batch holds items of one group
     * @param work
     *            runs a batch and answers one output per item, in the batch's order
     */
    public GroupCommit(int transactions, int batchSize, Function<I, Object> groupOf,
            Function<List<I>, Uni<List<O>>> work) {
        if (transactions < 1 || batchSize < 1) {
            throw new IllegalArgumentException("transactions and batchSize must be at least 1");
        }
        this.transactions = transactions;
        this.batchSize = batchSize;
        this.groupOf = groupOf;
        this.work = work;
    }

    /** Runs {@code item} in the next batch of its group; subscribe once (each subscription submits it). */
    public Uni<O> submit(I item) {
        return Uni.createFrom().emitter(emitter -> {
            Waiting<I, O> entry = new Waiting<>(item, groupOf.apply(item), emitter, Vertx.currentContext());
            synchronized (this) {
                waiting.add(entry);
            }
            emitter.onTermination(() -> {
                synchronized (this) {
                    waiting.remove(entry);
                }
            });
            startBatches();
        });
    }

    /** Items waiting now (those in running batches not counted). */
    public synchronized int waitingItems() {
        return waiting.size();
    }

    private void startBatches() {
        while (true) {
            List<Waiting<I, O>> batch = new ArrayList<>();
            synchronized (this) {
                if (running >= transactions || waiting.isEmpty()) {
                    return;
                }
                Object group = waiting.peekFirst().group();
                for (Iterator<Waiting<I, O>> each = waiting.iterator(); each.hasNext() && batch.size() < batchSize;) {
                    Waiting<I, O> next = each.next();
                    if (Objects.equals(next.group(), group)) {
                        batch.add(next);
                        each.remove();
                    }
                }
                running++;
            }
            run(batch);
        }
    }

    private void run(List<Waiting<I, O>> batch) {
        Uni<List<O>> answers;
        try {
            answers = work.apply(batch.stream().map(Waiting::item).toList());
        } catch (RuntimeException thrown) {
            answers = Uni.createFrom().failure(thrown);
        }
        answers.subscribe().with(outputs -> {
            ended();
            if (outputs == null || outputs.size() != batch.size()) {
                IllegalStateException wrong = new IllegalStateException("A batch of " + batch.size()
                        + " items answered " + (outputs == null ? "nothing" : outputs.size() + " outputs"));
                batch.forEach(entry -> entry.fail(wrong));
                return;
            }
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).complete(outputs.get(i));
            }
        }, failure -> {
            ended();
            batch.forEach(entry -> entry.fail(failure));
        });
    }

    private void ended() {
        synchronized (this) {
            running--;
        }
        startBatches();
    }

    private record Waiting<I, O>(I item, Object group, UniEmitter<? super O> emitter, Context context) {

        void complete(O output) {
            onContext(() -> emitter.complete(output));
        }

        void fail(Throwable failure) {
            onContext(() -> emitter.fail(failure));
        }

        private void onContext(Runnable step) {
            if (context == null || context == Vertx.currentContext()) {
                step.run();
            } else {
                context.runOnContext(ignored -> step.run());
            }
        }
    }
}
