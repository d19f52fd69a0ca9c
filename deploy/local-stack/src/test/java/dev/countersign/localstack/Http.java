package dev.countersign.localstack;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.json.Json;

/** A few lines of JDK HTTP client for the end-to-end test: JSON in, status and JSON out. */
final class Http {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    record Answer(int status, JsonNode body, String text, java.net.http.HttpHeaders headers) {

        /** The value of response header {@code name}, or null. */
        String header(String name) {
            return headers.firstValue(name).orElse(null);
        }
    }

    private Http() {
    }

    static Answer get(String url, String bearer) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).GET(), bearer);
    }

    static Answer put(String url, String bearer, Object body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(Json.write(body))), bearer);
    }

    static Answer post(String url, String bearer, Object body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body))), bearer);
    }

    /** A {@code text/csv} upload. */
    static Answer postText(String url, String bearer, String csv) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "text/csv")
                .POST(HttpRequest.BodyPublishers.ofString(csv)), bearer);
    }

    private static Answer send(HttpRequest.Builder request, String bearer) throws IOException, InterruptedException {
        if (bearer != null) {
            request.header("Authorization", "Bearer " + bearer);
        }
        HttpResponse<String> response = CLIENT.send(request.timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode json = null;
        if (!response.body().isBlank()) {
            try {
                json = Json.mapper().readTree(response.body());
            } catch (com.fasterxml.jackson.core.JsonProcessingException notJson) {
                // An error page or plain text: the status and the text say what happened.
            }
        }
        return new Answer(response.statusCode(), json, response.body(), response.headers());
    }
}
