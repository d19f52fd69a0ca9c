package dev.countersign.executor.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import io.smallrye.mutiny.Uni;

/**
 * Work submitted outside a Vert.x context runs on the thread that frees its turn, so every step here is synchronous.
 */
class KeyedLanesTest {

    private final List<String> started = new ArrayList<>();

    /** Work that records its start and ends when its future is completed. */
    private java.util.function.Supplier<Uni<?>> work(String name, CompletableFuture<Void> end) {
        return () -> {
            started.add(name);
            return Uni.createFrom().completionStage(end);
        };
    }

    @Test
    void workOnOneKeyRunsInOrderOneAtATime() {
        KeyedLanes lanes = new KeyedLanes(4, 16);
        var first = new CompletableFuture<Void>();
        var second = new CompletableFuture<Void>();

        lanes.submit("action-1", work("first", first)).await().indefinitely();
        lanes.submit("action-1", work("second", second)).await().indefinitely();
        assertThat(started).containsExactly("first");

        first.complete(null);
        assertThat(started).containsExactly("first", "second");
        second.complete(null);
        assertThat(lanes.inFlight()).isZero();
    }

    @Test
    void workOnKeysOfDifferentLanesRunsAtTheSameTime() {
        KeyedLanes lanes = new KeyedLanes(2, 2);
        // "a" and "b" hash to 97 and 98: lanes 1 and 0.
        lanes.submit("a", work("a", new CompletableFuture<>())).await().indefinitely();
        lanes.submit("b", work("b", new CompletableFuture<>())).await().indefinitely();

        assertThat(started).containsExactly("a", "b");
        assertThat(lanes.inFlight()).isEqualTo(2);
    }

    @Test
    void aSubmitBeyondTheCapacityIsAdmittedOnlyWhenEarlierWorkEnds() {
        KeyedLanes lanes = new KeyedLanes(1, 2);
        var first = new CompletableFuture<Void>();
        lanes.submit("k", work("first", first)).await().indefinitely();
        lanes.submit("k", work("second", new CompletableFuture<>())).await().indefinitely();

        var third = lanes.submit("k", work("third", new CompletableFuture<>())).subscribeAsCompletionStage();
        assertThat(third).isNotDone();
        assertThat(lanes.inFlight()).isEqualTo(2);

        first.complete(null);
        assertThat(third).isDone();
        assertThat(started).containsExactly("first", "second");
        assertThat(lanes.inFlight()).isEqualTo(2);
    }

    @Test
    void workThatFailsOrThrowsFreesItsTurn() {
        KeyedLanes lanes = new KeyedLanes(1, 3);
        lanes.submit("k", () -> Uni.createFrom().failure(new IllegalStateException("refused"))).await().indefinitely();
        lanes.submit("k", () -> {
            throw new IllegalStateException("thrown while building the work");
        }).await().indefinitely();
        lanes.submit("k", work("after", new CompletableFuture<>())).await().indefinitely();

        assertThat(started).containsExactly("after");
        assertThat(lanes.inFlight()).isEqualTo(1);
    }

    @Test
    void oneStuckKeyAdmitsTheWorkBehindItInItsLaneUntilItHoldsTheWholeCapacity() {
        KeyedLanes lanes = new KeyedLanes(2, 3);
        var stuck = new CompletableFuture<Void>();
        lanes.submit("a", work("stuck", stuck)).await().indefinitely();
        lanes.submit("a", work("a2", new CompletableFuture<>())).await().indefinitely();
        lanes.submit("a", work("a3", new CompletableFuture<>())).await().indefinitely();

        var otherLane = lanes.submit("b", work("b", new CompletableFuture<>())).subscribeAsCompletionStage();
        assertThat(otherLane).as("a key of the other lane waits for a place").isNotDone();
        assertThat(started).containsExactly("stuck");

        stuck.complete(null);
        assertThat(otherLane).isDone();
        assertThat(started).containsExactly("stuck", "a2", "b");
    }

    @Test
    void aSubmitCancelledBeforeItsAdmissionIsWithdrawn() {
        KeyedLanes lanes = new KeyedLanes(1, 1);
        var first = new CompletableFuture<Void>();
        lanes.submit("k", work("first", first)).await().indefinitely();
        var withdrawn = lanes.submit("k", work("withdrawn", new CompletableFuture<>())).subscribe()
                .with(ignored -> {
                });

        withdrawn.cancel();
        first.complete(null);

        assertThat(started).containsExactly("first");
        assertThat(lanes.inFlight()).isZero();
    }

    @Test
    void theWorkRunsOnTheVertxContextOfItsSubmit() throws Exception {
        io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
        try {
            KeyedLanes lanes = new KeyedLanes(1, 2);
            io.vertx.core.Context context = vertx.getOrCreateContext();
            var ranOn = new CompletableFuture<io.vertx.core.Context>();
            context.runOnContext(ignored -> lanes.submit("k", () -> {
                ranOn.complete(io.vertx.core.Vertx.currentContext());
                return Uni.createFrom().voidItem();
            }).subscribe().with(admitted -> {
            }));

            assertThat(ranOn.get(10, java.util.concurrent.TimeUnit.SECONDS)).isSameAs(context);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void lanesMustBePositiveAndTheCapacityAtLeastTheLanes() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new KeyedLanes(0, 1))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new KeyedLanes(2, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
