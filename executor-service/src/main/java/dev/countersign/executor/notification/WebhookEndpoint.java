package dev.countersign.executor.notification;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import io.quarkus.rest.client.reactive.Url;
import io.smallrye.mutiny.Uni;

/**
 * A person's webhook, as a Quarkus REST Client the egress gate makes for one notification's scope (its origin only).
 * Any 2xx answer is a delivery; anything else, or none in time, a failed attempt.
 */
public interface WebhookEndpoint {

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    Uni<Response> post(@Url String url, @HeaderParam("webhook-id") String id,
            @HeaderParam("webhook-timestamp") long timestamp, @HeaderParam("webhook-signature") String signature,
            String body);
}
