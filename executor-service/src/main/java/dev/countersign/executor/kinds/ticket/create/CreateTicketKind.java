package dev.countersign.executor.kinds.ticket.create;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.kind.CallRefused;
import dev.countersign.executor.kind.Egress;
import dev.countersign.executor.kind.ExternalKind;
import dev.countersign.executor.kind.KindAction;
import dev.countersign.executor.kind.RowOwner;
import io.smallrye.mutiny.Uni;

/**
 * {@code ticket.create}: {@code POST} the title and description to the configured ticket system with the action's
 * idempotency key in the {@code Idempotency-Key} header. A 2xx answer is the ticket; a 4xx is a refusal (the action
 * fails); no answer, or a 5xx, leaves the outcome unknown, and because the vendor honours the key the call may be made
 * again ({@link #attempts()}, and once more by the recovery) without creating a second ticket.
 */
@ApplicationScoped
public class CreateTicketKind implements ExternalKind {

    private static final java.util.Set<Integer> UNKNOWN_4XX = java.util.Set.of(408, 409, 425, 429);

    private final TicketConfig config;
    private final Optional<URI> endpoint;

    public CreateTicketKind(TicketConfig config) {
        this.config = config;
        this.endpoint = config.url().filter(url -> !url.isBlank()).map(URI::create);
    }

    @Override
    public String kind() {
        return ShippedKinds.CREATE_TICKET;
    }

    /** A support case, a ticket: the tenant's, nobody's own. */
    @Override
    public RowOwner owner() {
        return RowOwner.nobody();
    }

    @Override
    public boolean isConfigured() {
        return endpoint.isPresent();
    }

    @Override
    public int attempts() {
        return config.attempts();
    }

    @Override
    public Duration longestCall() {
        return config.timeout().multipliedBy(Math.max(1, attempts()));
    }

    @Override
    public Optional<URI> httpOrigin() {
        return endpoint;
    }

    @Override
    public Uni<JsonNode> call(KindAction action, Egress egress) {
        TicketSystemApi tickets = egress.http(TicketSystemApi.class, config.timeout());
        String authorization = config.apiToken().filter(token -> !token.isBlank()).map(token -> "Bearer " + token)
                .orElse(null);
        return tickets.create(action.idempotencyKey(), authorization, new TicketSystemApi.NewTicket(
                action.params().get("title").asText(), action.params().get("description").asText()))
                .onFailure(CallRefused::isConnectionRefused)
                .transform(failure -> new CallRefused(ErrorCode.UPSTREAM_UNAVAILABLE,
                        "the ticket system refused the connection; nothing was sent"))
                .map(response -> ticketOf(response.getStatus(), response.getEntity()));
    }

    /**
     * A 2xx with the ticket's id is the ticket; a 4xx that says "no" is a refusal; anything else (a 5xx; 408, 409, 425
     * or 429, which vendors answer while the same key is in flight or they are busy; a 2xx without an id) leaves the
     * outcome unknown, and the call may be repeated with the key.
     */
    public static JsonNode ticketOf(int status, String body) {
        if (status >= 200 && status < 300) {
            JsonNode ticket = Json.read(body, JsonNode.class);
            if (!ticket.hasNonNull("id") || ticket.get("id").asText().isBlank()) {
                throw new IllegalStateException("the ticket system answered HTTP %d without a ticket id".formatted(
                        status));
            }
            return Json.mapper().createObjectNode().put("ticketId", ticket.get("id").asText()).put("status", status);
        }
        if (status >= 400 && status < 500 && !UNKNOWN_4XX.contains(status)) {
            throw new CallRefused(ErrorCode.VENDOR_REFUSED,
                    "the ticket system refused the ticket (HTTP %d)".formatted(status));
        }
        throw new IllegalStateException("the ticket system answered HTTP " + status);
    }
}
