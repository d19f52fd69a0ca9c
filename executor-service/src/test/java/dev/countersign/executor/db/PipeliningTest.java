package dev.countersign.executor.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.smallrye.mutiny.Uni;
import io.vertx.pgclient.PgException;

/**
 * Steps sent together answer after all have ended, and a failure names what went wrong first: a deadlock stays a
 * deadlock (the batch confirm retries it) though the steps sent after it were refused for it.
 */
class PipeliningTest {

    private static PgException failure(String sqlState) {
        return new PgException("failed", "ERROR", sqlState, null);
    }

    @Test
    void stepsAreSentInOrderAndAnsweredTogether() {
        List<String> sent = new ArrayList<>();
        Uni<String> first = Uni.createFrom().item(() -> {
            sent.add("first");
            return "a";
        });

        String answer = Pipelining.sendTogether(first, () -> {
            sent.add("second");
            return Uni.createFrom().item("b");
        }, (a, b) -> a + b).await().indefinitely();

        assertThat(answer).isEqualTo("ab");
        assertThat(sent).containsExactly("first", "second");
    }

    @Test
    void theFirstFailureSentIsReportedWithTheRefusalsItCausedSuppressed() {
        PgException deadlock = failure("40P01");
        PgException aborted = failure("25P02");

        assertThatThrownBy(() -> Pipelining.sendWithoutWaiting(Uni.createFrom().failure(deadlock),
                () -> Uni.createFrom().failure(aborted)).await().indefinitely())
                .isSameAs(deadlock)
                .matches(TransientFailures::isDeadlockOrSerialization, "a deadlock the batch retries");

        // PgException keeps no suppressed exceptions; one that does gets the later failures attached.
        IllegalStateException first = new IllegalStateException("first");
        IllegalStateException second = new IllegalStateException("refused for the first");
        assertThatThrownBy(() -> Pipelining.sendWithoutWaiting(Uni.createFrom().failure(first),
                () -> Uni.createFrom().failure(second)).await().indefinitely())
                .isSameAs(first)
                .satisfies(reported -> assertThat(reported.getSuppressed()).containsExactly(second));
    }

    @Test
    void aFailureOfTheAnswerFailsTheWhole() {
        assertThatThrownBy(() -> Pipelining.sendTogether(Uni.createFrom().item("a"),
                () -> Uni.createFrom().item("b"), (a, b) -> {
                    throw new IllegalStateException("not the row the second step was built for");
                }).await().indefinitely()).isInstanceOf(IllegalStateException.class);
    }
}
