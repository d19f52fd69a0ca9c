package dev.countersign.executor.db;

import java.util.function.BiFunction;
import java.util.function.Supplier;

import io.smallrye.mutiny.Uni;

/**
 * Two steps on one connection, the second sent without waiting for the first's answer. The reactive client runs a
 * connection's commands in the order they were sent and writes them out together (pipelining), so PostgreSQL gets both
 * in one round trip and runs the second after the first, in the same transaction.
 * <p>
 * The result is the second step's; it fails if either fails, after both have ended (a single failure as it is, two as a
 * {@code CompositeException}). Only inside a transaction that has begun, and only for a first step whose answer the
 * second does not need: if the first fails, PostgreSQL aborts the transaction, so the second's statements are refused,
 * and the caller's transaction rolls back. Never for BEGIN itself: after a BEGIN that failed, the second step's
 * statements would run, and commit, one by one.
 */
public final class Pipelining {

    private Pipelining() {
    }

    public static <T> Uni<T> sendWithoutWaiting(Uni<?> first, Supplier<Uni<? extends T>> second) {
        return sendTogether(first, second, (ignored, result) -> result);
    }

    /**
     * {@link #sendWithoutWaiting}, answering with what {@code answer} makes of both steps' results (either may be
     * null); {@code answer} runs only when neither step failed, and may throw to fail the whole.
     */
    public static <A, B, R> Uni<R> sendTogether(Uni<A> first, Supplier<Uni<? extends B>> second,
            BiFunction<A, B, R> answer) {
        // The second step is built on subscription, and combine subscribes in order: the first is sent first.
        Uni<B> then = Uni.createFrom().deferred(second);
        return Uni.combine().all().unis(first, then).collectFailures().with(answer);
    }
}
