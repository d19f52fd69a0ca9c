package dev.countersign.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.util.concurrent.CompletionException;

import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.api.Problem;
import io.vertx.pgclient.PgException;

class DatabaseFailuresTest {

    private static PgException postgres(String sqlState) {
        return new PgException("server says no", "FATAL", sqlState, null);
    }

    @Test
    void aServerShuttingDownOrARefusedConnectionIsTheDatabaseBeingAway() {
        assertThat(DatabaseFailures.isUnavailable(postgres("57P01"))).isTrue();
        assertThat(DatabaseFailures.isUnavailable(postgres("08006"))).isTrue();
        assertThat(DatabaseFailures.isUnavailable(postgres("25006"))).isTrue();
        assertThat(DatabaseFailures.isUnavailable(
                new CompletionException(new ConnectException("Connection refused: localhost/127.0.0.1:5432"))))
                .isTrue();
        assertThat(DatabaseFailures.isUnavailable(io.vertx.sqlclient.ClosedConnectionException.INSTANCE)).isTrue();
        assertThat(DatabaseFailures.isUnavailable(new java.io.IOException("Connection reset by peer"))).isTrue();
    }

    @Test
    void anErrorAboutTheDataOrTheCodeIsNot() {
        assertThat(DatabaseFailures.isUnavailable(postgres("23505"))).isFalse();
        assertThat(DatabaseFailures.isUnavailable(postgres("40001"))).isFalse();
        assertThat(DatabaseFailures.isUnavailable(new IllegalStateException("a bug"))).isFalse();
        assertThat(DatabaseFailures.isUnavailable(new java.io.UncheckedIOException(
                new com.fasterxml.jackson.core.JsonParseException(null, "unreadable stored JSON")))).isFalse();
    }

    @Test
    void theHttpLayerAnswers503WithRetryAfterAndAStableCode() {
        Response response = new ProblemMappers().unexpected(postgres("57P01"));

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getHeaderString("Retry-After")).isEqualTo(ProblemMappers.RETRY_AFTER_SECONDS);
        Problem problem = (Problem) response.getEntity();
        assertThat(problem.code()).isEqualTo("database_unavailable");
        assertThat(problem.detail()).contains("Retrying").contains("safe");
    }

    @Test
    void anUnexpectedErrorStaysA500WithoutRetryAfter() {
        Response response = new ProblemMappers().unexpected(new IllegalStateException("a bug"));

        assertThat(response.getStatus()).isEqualTo(500);
        assertThat(response.getHeaderString("Retry-After")).isNull();
    }
}
