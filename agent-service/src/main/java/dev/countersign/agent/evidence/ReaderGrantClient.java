package dev.countersign.agent.evidence;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ReaderGrant;
import dev.countersign.contracts.api.ReaderGrantRequest;
import dev.countersign.contracts.json.Json;
import dev.countersign.web.ProblemException;
import io.smallrye.mutiny.Uni;

/**
 * Asks executor-service for a person's reader grant, presenting that person's own agent token. The token and the
 * grant's secret are never logged; a refusal says only its status.
 */
@ApplicationScoped
public class ReaderGrantClient {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI endpoint;
    private final ReaderGrantsConfig config;

    public ReaderGrantClient(ReaderGrantsConfig config) {
        this.config = config;
        this.endpoint = config.executorUrl().resolve("/api/reader-grants");
    }

    public Uni<ReaderGrant> mint(Person person, String token) {
        HttpRequest request = HttpRequest.newBuilder(endpoint)
                .timeout(config.timeout())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        Json.write(new ReaderGrantRequest(person.tenantId(), person.userId(), token))))
                .build();
        return Uni.createFrom().completionStage(() -> http.sendAsync(request, HttpResponse.BodyHandlers.ofString()))
                .onFailure().transform(e -> new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE,
                        "The executor did not answer for a reader grant; try again."))
                .map(response -> switch (response.statusCode()) {
                    case 200 -> Json.read(response.body(), ReaderGrant.class);
                    case 400, 401, 403 -> throw new ProblemException(ErrorCode.UNAUTHENTICATED,
                            "Your sign-in no longer lets the assistant read your data: sign in again.");
                    // The executor's database is down: so, most likely, is the agent's (the same server); the caller
                    // gets the same 503 with Retry-After as any read that meets it.
                    case 503 -> throw response.body().contains("\"" + ErrorCode.DATABASE_UNAVAILABLE.code() + "\"")
                            ? new ProblemException(ErrorCode.DATABASE_UNAVAILABLE,
                                    "The database cannot be reached right now; try again in a moment.")
                            : new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE,
                                    "The executor cannot mint a reader grant right now; try again in a moment.");
                    default -> throw new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE,
                            "The executor could not mint a reader grant (status %d); try again."
                                    .formatted(response.statusCode()));
                });
    }
}
