package dev.countersign.executor.messaging;

import static dev.countersign.devsupport.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Items submitted outside a Vert.x context are answered on the thread that ends their batch, so every step here is
 * synchronous. An item is "group:name"; the work answers each item's name upper-cased once its batch's future ends.
 */
class GroupCommitTest {

    private final List<List<String>> batches = new ArrayList<>();
    private final List<CompletableFuture<Void>> ends = new ArrayList<>();

    private GroupCommit<String, String> groupCommit(int transactions, int batchSize) {
        return new GroupCommit<>(transactions, batchSize, item -> item.substring(0, item.indexOf(':')), batch -> {
            batches.add(batch);
            CompletableFuture<Void> end = new CompletableFuture<>();
            ends.add(end);
            return Uni.createFrom().completionStage(end)
                    .map(ignored -> batch.stream().map(item -> item.substring(item.indexOf(':') + 1).toUpperCase())
                            .toList());
        });
    }

    private static CompletableFuture<String> submit(GroupCommit<String, String> commit, String item) {
        return commit.submit(item).subscribeAsCompletionStage();
    }

    @Test
    void anItemSubmittedWhileATransactionIsFreeStartsAtOnceAlone() {
        var commit = groupCommit(2, 8);

        var first = submit(commit, "t1:a");

        assertThat(batches).containsExactly(List.of("t1:a"));
        ends.get(0).complete(null);
        assertThat(first).isCompletedWithValue("A");
    }

    @Test
    void itemsWaitingForABusyTransactionAreStagedTogetherByGroupInTheirOrder() throws Exception {
        var commit = groupCommit(1, 8);
        var first = submit(commit, "t1:a");
        var b = submit(commit, "t1:b");
        var other = submit(commit, "t2:x");
        var c = submit(commit, "t1:c");
        assertThat(commit.waitingItems()).isEqualTo(3);

        ends.get(0).complete(null);

        assertThat(first).isCompletedWithValue("A");
        assertThat(batches).containsExactly(List.of("t1:a"), List.of("t1:b", "t1:c"));
        assertThat(commit.waitingItems()).isEqualTo(1);
        ends.get(1).complete(null);
        assertThat(b).isCompletedWithValue("B");
        assertThat(c).isCompletedWithValue("C");
        assertThat(batches.get(2)).containsExactly("t2:x");
        ends.get(2).complete(null);
        assertThat(other).isCompletedWithValue("X");
    }

    @Test
    void aBatchHoldsAtMostBatchSizeItems() {
        var commit = groupCommit(1, 2);
        submit(commit, "t1:a");
        submit(commit, "t1:b");
        submit(commit, "t1:c");
        submit(commit, "t1:d");

        ends.get(0).complete(null);
        ends.get(1).complete(null);

        assertThat(batches).containsExactly(List.of("t1:a"), List.of("t1:b", "t1:c"), List.of("t1:d"));
    }

    @Test
    void atMostTransactionsBatchesRunAtOnce() {
        var commit = groupCommit(2, 8);
        submit(commit, "t1:a");
        submit(commit, "t1:b");
        submit(commit, "t1:c");

        assertThat(batches).containsExactly(List.of("t1:a"), List.of("t1:b"));
        assertThat(commit.waitingItems()).isEqualTo(1);
    }

    @Test
    void aFailedBatchFailsEachOfItsItemsAndTheNextBatchStillRuns() {
        var commit = groupCommit(1, 8);
        submit(commit, "t1:a");
        var b = submit(commit, "t1:b");
        var c = submit(commit, "t1:c");
        ends.get(0).complete(null);

        ends.get(1).completeExceptionally(new IllegalStateException("the batch's transaction failed"));

        assertThat(b).isCompletedExceptionally();
        assertThat(c).isCompletedExceptionally();
        assertThatThrownBy(b::join).hasRootCauseMessage("the batch's transaction failed");
        var after = submit(commit, "t1:d");
        assertThat(batches.get(2)).containsExactly("t1:d");
        ends.get(2).complete(null);
        assertThat(after).isCompletedWithValue("D");
    }

    @Test
    void workThatThrowsOrAnswersTheWrongCountFailsItsItemsAndFreesItsTransaction() {
        var thrown = new GroupCommit<String, String>(1, 8, item -> "g", batch -> {
            throw new IllegalStateException("thrown while building the batch");
        });
        assertThat(submit(thrown, "a")).isCompletedExceptionally();
        assertThat(submit(thrown, "b")).isCompletedExceptionally();

        var short1 = new GroupCommit<String, String>(1, 8, item -> "g", batch -> Uni.createFrom().item(List.of()));
        assertThatThrownBy(submit(short1, "a")::join).hasMessageContaining("answered 0 outputs");
    }

    @Test
    void anItemCancelledWhileWaitingIsWithdrawn() {
        var commit = groupCommit(1, 8);
        submit(commit, "t1:a");
        var withdrawn = commit.submit("t1:b").subscribe().with(ignored -> {
        });
        submit(commit, "t1:c");

        withdrawn.cancel();
        ends.get(0).complete(null);

        assertThat(batches).containsExactly(List.of("t1:a"), List.of("t1:c"));
    }

    @Test
    void anItemIsAnsweredOnTheVertxContextItWasSubmittedOn() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            var commit = groupCommit(1, 8);
            submit(commit, "t1:a");
            Context context = vertx.getOrCreateContext();
            var answeredOn = new CompletableFuture<Context>();
            context.runOnContext(ignored -> commit.submit("t1:b").subscribe()
                    .with(answer -> answeredOn.complete(Vertx.currentContext())));

            await().atMost(Duration.ofSeconds(10)).until(() -> commit.waitingItems() == 1);
            ends.get(0).complete(null);
            ends.get(1).complete(null);

            assertThat(answeredOn.get(10, TimeUnit.SECONDS)).isSameAs(context);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void transactionsAndBatchSizeMustBePositive() {
        assertThatThrownBy(() -> new GroupCommit<String, String>(0, 1, item -> "g", batch -> null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GroupCommit<String, String>(1, 0, item -> "g", batch -> null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
