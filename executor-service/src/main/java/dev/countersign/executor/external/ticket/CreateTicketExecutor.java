package dev.countersign.executor.external.ticket;

import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpRequest;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.external.CallRefused;
import dev.countersign.executor.external.ExternalConfig;
import dev.countersign.executor.external.ExternalExecutor;
import dev.countersign.executor.external.gate.GateScope;
import dev.countersign.executor.external.gate.GatedHttp;
import io.smallrye.mutiny.Uni;

/**
 * {@code ticket.create}: {@code POST} the title and description to the configured ticket system with the action's
 * idempotency key in the {@code Idempotency-Key} header. A 2xx answer is the ticket; a 4xx is a refusal (the action
 * fails); no answer, or a 5xx, leaves the outcome unknown, and because the vendor honours the key the call may be made
 * again ({@link #attempts()}, and once more by the recovery) without creating a second ticket.
 */
@ApplicationScoped
public class CreateTicketExecutor implements ExternalExecutor {

    private final GatedHttp http;
    private final ExternalConfig config;

    public CreateTicketExecutor(GatedHttp http, ExternalConfig config) {
        this.http = http;
        this.config = config;
    }

    @Override
    public String kind() {
        return ActionCatalogue.CREATE_TICKET;
    }

    @Override
    public boolean isConfigured() {
        return config.ticket().url().isPresent();
    }

    @Override
    public int attempts() {
        return config.ticket().attempts();
    }

    @Override
    public Uni<JsonNode> call(ActionRow action, GateScope scope) {
        String body = Json.write(Json.mapper().createObjectNode()
                .put("title", action.params().get("title").asText())
                .put("description", action.params().get("description").asText()));
        HttpRequest request = HttpRequest.newBuilder(URI.create(config.ticket().url().orElseThrow()))
                .timeout(config.ticket().timeout())
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", action.idempotencyKey())
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return http.send(scope, request)
                .onFailure(failure -> failure instanceof ConnectException
                        || failure.getCause() instanceof ConnectException)
                .transform(failure -> new CallRefused(ErrorCode.UPSTREAM_UNAVAILABLE,
                        "the ticket system refused the connection; nothing was sent"))
                .map(response -> {
                    int status = response.statusCode();
                    if (status >= 200 && status < 300) {
                        JsonNode ticket = Json.read(response.body(), JsonNode.class);
                        return (JsonNode) Json.mapper().createObjectNode().put("ticketId", ticket.path("id").asText())
                                .put("status", status);
                    }
                    if (status >= 400 && status < 500) {
                        throw new CallRefused(ErrorCode.VENDOR_REFUSED,
                                "the ticket system refused the ticket (HTTP %d)".formatted(status));
                    }
                    throw new IllegalStateException("the ticket system answered HTTP " + status);
                });
    }
}
