package dev.countersign.device;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.jwt.JsonWebToken;

import io.quarkus.oidc.IdToken;
import io.quarkus.security.Authenticated;

/** {@code GET /api/me}: who is signed in on this device, for the page's header. */
@Path("/api/me")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class MeResource {

    public record Me(String username) {
    }

    @Inject
    @IdToken
    JsonWebToken idToken;

    @GET
    public Me me() {
        Object username = idToken.getClaim("preferred_username");
        return new Me(username instanceof String name ? name : idToken.getSubject());
    }
}
