package dev.countersign.device;

import java.time.Instant;
import java.util.UUID;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.oidc.Tenant;
import io.quarkus.oidc.TenantIdentityProvider;
import io.smallrye.mutiny.Uni;

/**
 * Keycloak's HTTP authentication channel for CIBA ({@code
 * --spi-ciba-auth-channel--ciba-http-auth-channel--http-authentication-channel-uri}): Keycloak posts each backchannel
 * authentication request here, with a bearer token it signed (issued by the realm, for the realm as its audience, its
 * subject the person) which is also the credential of the answer. The token is verified here (the OIDC tenant
 * {@code channel}), so that nobody but Keycloak can put a prompt on a person's screen, and must have been issued for
 * the executor's CIBA client ({@code azp}); a request is kept once (by the token's id) for its subject, and answered
 * 201 as Keycloak expects.
 * <p>
 * What Keycloak sends is only the login hint, the binding message, the scope and the ACR: what the request is about is
 * read from the executor when the person looks ({@link RequestsResource}).
 */
@Path("/channel")
public class ChannelResource {

    private static final Logger LOG = Logger.getLogger(ChannelResource.class);
    private static final String BEARER = "Bearer ";

    /** Keycloak's channel request (AuthenticationChannelRequest). */
    public record Incoming(@JsonProperty("login_hint") String loginHint,
            @JsonProperty("binding_message") String bindingMessage, String scope) {
    }

    private final TenantIdentityProvider keycloak;
    private final ChannelRequests requests;
    private final String cibaClient;

    public ChannelResource(@Tenant("channel") TenantIdentityProvider keycloak, ChannelRequests requests,
            @ConfigProperty(name = "device.ciba-client-id") String cibaClient) {
        this.keycloak = keycloak;
        this.requests = requests;
        this.cibaClient = cibaClient;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Response> post(@HeaderParam("Authorization") String authorization, Incoming incoming) {
        if (authorization == null || !authorization.startsWith(BEARER) || incoming == null
                || incoming.bindingMessage() == null || incoming.loginHint() == null) {
            return Uni.createFrom().item(Response.status(Response.Status.BAD_REQUEST).build());
        }
        String token = authorization.substring(BEARER.length()).strip();
        return keycloak.authenticate(new AccessTokenCredential(token))
                .map(identity -> {
                    JsonWebToken jwt = (JsonWebToken) identity.getPrincipal();
                    // Only the executor's CIBA client's requests: another client of the realm could otherwise ask a
                    // person, under an action's code, for an approval that would be that client's token.
                    if (!cibaClient.equals(jwt.getClaim("azp")) || jwt.getTokenID() == null) {
                        return Response.status(Response.Status.FORBIDDEN).build();
                    }
                    ChannelRequest request = new ChannelRequest(UUID.randomUUID(), jwt.getSubject(),
                            incoming.loginHint(), incoming.bindingMessage(), token, jwt.getTokenID(), Instant.now(),
                            Instant.ofEpochSecond(jwt.getExpirationTime()));
                    if (!requests.add(request)) {
                        LOG.warnf("Refused %s: held already, or %d requests pending", request, ChannelRequests.MAX);
                        return Response.status(Response.Status.CONFLICT).build();
                    }
                    LOG.infof("Received %s", request);
                    return Response.status(Response.Status.CREATED).build();
                })
                // Not signed by the realm, expired, or for another audience: not Keycloak's. Its content is not logged.
                .onFailure().recoverWithItem(() -> Response.status(Response.Status.UNAUTHORIZED).build());
    }
}
