package dev.countersign.executor.db;

import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Supplier;

import io.smallrye.mutiny.CompositeException;
import io.smallrye.mutiny.Uni;

/**
 * Steps on one connection, each sent without waiting for the one before to answer. The reactive client runs a
 * connection's commands in the order they were sent and writes them out together (pipelining), so PostgreSQL gets them
 * in one round trip and runs each after the one before, in the same transaction.
 * <p>
 * The result comes after every step has ended. If a step fails, PostgreSQL aborts the transaction, so the statements
 * sent after it are refused too; the failure reported is the first in the order sent (what went wrong, not the refusals
 * it caused; those are attached to it as suppressed where its class keeps them, which PgException does not), and the
 * caller's transaction rolls back. Only inside a transaction that has begun. A later step sent before an earlier one
 * answered must not depend on that answer, unless the caller checks the answer afterwards and fails the transaction
 * when it is not the one the later step assumed. BEGIN is sent this way too ({@link TenantTransactions}, which says
 * what keeps the statements after a BEGIN that failed from running alone).
 */
public final class Pipelining {

    private Pipelining() {
    }

    /** {@code first}, then {@code second} sent without waiting for the first's answer; the second's result. */
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
        return Uni.combine().all().unis(first, then).collectFailures().with(answer)
                .onFailure(CompositeException.class).transform(Pipelining::firstSent);
    }

    /** The first failure in the order sent, the later ones (the refusals it caused) suppressed in it. */
    private static Throwable firstSent(Throwable failures) {
        List<Throwable> causes = ((CompositeException) failures).getCauses();
        Throwable first = causes.get(0);
        causes.stream().skip(1).filter(later -> later != first).forEach(first::addSuppressed);
        return first;
    }
}
