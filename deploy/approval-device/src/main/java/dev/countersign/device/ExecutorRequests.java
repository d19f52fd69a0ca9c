package dev.countersign.device;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import com.fasterxml.jackson.databind.JsonNode;

import io.smallrye.mutiny.Uni;

/**
 * The executor's {@code GET /api/second-device/requests}, called with the signed-in person's own access token: their
 * pending second-device requests, each with its code and its action as the decision page shows it.
 */
@RegisterRestClient(configKey = "executor")
@Path("/api/second-device/requests")
interface ExecutorRequests {

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    Uni<JsonNode> pending(@HeaderParam("Authorization") String bearer);
}
