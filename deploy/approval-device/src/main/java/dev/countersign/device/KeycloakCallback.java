package dev.countersign.device;

import java.util.Map;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import io.smallrye.mutiny.Uni;

/**
 * Keycloak's CIBA callback ({@code /protocol/openid-connect/ext/ciba/auth/callback} under the realm's URL): the device
 * answers one request with the bearer token Keycloak posted it with, and {@code {"status": "SUCCEED"}} (the person
 * approved) or {@code "UNAUTHORIZED"} (they denied). Keycloak believes it: the device is part of the trusted base.
 */
@RegisterRestClient(configKey = "keycloak")
@Path("/protocol/openid-connect/ext/ciba/auth/callback")
interface KeycloakCallback {

    String APPROVED = "SUCCEED";
    String DENIED = "UNAUTHORIZED";

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    Uni<Response> answer(@HeaderParam("Authorization") String bearer, Map<String, String> status);
}
