package dev.countersign.executor.db;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.vertx.pgclient.PgException;

/**
 * What is retried: the environment (a connection, a serialization failure, a shutdown), never SQL that refuses the same
 * way on every run (this record's data, a PL/pgSQL RAISE such as a kind's own, Countersign's own states such as a
 * kind's write that answered nothing): retrying those would stall a consumer's partition forever.
 */
class TransientFailuresTest {

    @ParameterizedTest
    @ValueSource(strings = {"40001", "40P01", "08006", "57P01", "53300", "55P03"})
    void theEnvironmentsFailuresAreRetried(String state) {
        assertThat(TransientFailures.isTransient(new PgException("x", "ERROR", state, null))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"22P02", "23505", "P0001", "CS003", "CS401"})
    void sqlThatRefusesTheSameWayEveryTimeIsNot(String state) {
        assertThat(TransientFailures.isTransient(new PgException("x", "ERROR", state, null))).isFalse();
    }
}
