package dev.countersign.executor;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.quarkus.vertx.VertxContextSupport;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/** Runs Panache work from a test thread: each call on a fresh Vert.x context, as a request would have. */
final class Sessions {

    private Sessions() {
    }

    static <T> T await(Supplier<Uni<T>> work) {
        try {
            return VertxContextSupport.subscribeAndAwait(work);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Waits for {@code signal} without blocking, then goes on on the caller's Vert.x context (a Hibernate Reactive
     * session refuses to be used from another thread than the one that opened it). Call it inside the session's work.
     */
    static Uni<Void> after(CompletableFuture<?> signal) {
        Context context = Vertx.currentContext();
        return Uni.createFrom().completionStage(signal).replaceWithVoid()
                .emitOn(task -> context.runOnContext(ignored -> task.run()));
    }

    /** Like {@link #await}, on another thread: for two sessions open at once. */
    static <T> CompletableFuture<T> start(Supplier<Uni<T>> work) {
        return CompletableFuture.supplyAsync(() -> await(work));
    }
}
