package dev.countersign.device;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.jwt.JsonWebToken;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;

import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.oidc.IdToken;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/**
 * What the signed-in person sees and answers: the requests Keycloak posted for them (by their {@code sub}, never by a
 * name the request carried), each with what the executor says is waiting for them under the same code; and their
 * answer, which the device passes to Keycloak. A request the executor does not vouch for (no pending request of theirs
 * with that code) is never answered: it can only be dismissed here, so that neither an approval nor a denial reaches
 * Keycloak for a prompt that came to the wrong person (a {@code login_hint} Keycloak resolved to someone else).
 * <p>
 * A change needs the header {@value #CSRF_HEADER}, which a page of another site cannot send without a CORS preflight
 * this device never answers; the session cookie is also SameSite=Lax, so another site's form post carries none.
 */
@Path("/api/requests")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class RequestsResource {

    static final String CSRF_HEADER = "X-Requested-With";

    private static final Logger LOG = Logger.getLogger(RequestsResource.class);

    /** One request as the page shows it; {@code action} null when the executor does not vouch for it. */
    public record Shown(UUID id, String code, Instant expiresAt, JsonNode action) {
    }

    private final ChannelRequests requests;
    private final AccessTokenCredential accessToken;
    private final ExecutorRequests executor;
    private final KeycloakCallback keycloak;

    @Inject
    @IdToken
    JsonWebToken idToken;

    public RequestsResource(ChannelRequests requests, AccessTokenCredential accessToken,
            @RestClient ExecutorRequests executor, @RestClient KeycloakCallback keycloak) {
        this.requests = requests;
        this.accessToken = accessToken;
        this.executor = executor;
        this.keycloak = keycloak;
    }

    @GET
    public Uni<List<Shown>> mine() {
        List<ChannelRequest> mine = requests.of(idToken.getSubject());
        if (mine.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        return vouched().map(vouched -> {
            List<Shown> shown = new ArrayList<>();
            mine.forEach(request -> shown.add(new Shown(request.id(), request.code(), request.expiresAt(),
                    vouchedFor(vouched, request.code()).orElse(null))));
            return shown;
        });
    }

    @POST
    @Path("/{id}/approve")
    public Uni<Response> approve(@PathParam("id") UUID id, @HeaderParam(CSRF_HEADER) String csrf) {
        return answer(id, csrf, KeycloakCallback.APPROVED);
    }

    @POST
    @Path("/{id}/deny")
    public Uni<Response> deny(@PathParam("id") UUID id, @HeaderParam(CSRF_HEADER) String csrf) {
        return answer(id, csrf, KeycloakCallback.DENIED);
    }

    /** Forgets a request here without answering it (one the executor does not vouch for); it expires at Keycloak. */
    @POST
    @Path("/{id}/dismiss")
    public Response dismiss(@PathParam("id") UUID id, @HeaderParam(CSRF_HEADER) String csrf) {
        if (csrf == null || csrf.isBlank()) {
            return Response.status(Response.Status.FORBIDDEN).build();
        }
        return requests.take(id, idToken.getSubject()).isPresent()
                ? Response.noContent().build()
                : Response.status(Response.Status.NOT_FOUND).build();
    }

    private Uni<Response> answer(UUID id, String csrf, String status) {
        if (csrf == null || csrf.isBlank()) {
            return Uni.createFrom().item(Response.status(Response.Status.FORBIDDEN).build());
        }
        String subject = idToken.getSubject();
        Optional<ChannelRequest> mine = requests.of(subject).stream().filter(one -> one.id().equals(id)).findFirst();
        if (mine.isEmpty()) {
            return Uni.createFrom().item(Response.status(Response.Status.NOT_FOUND).build());
        }
        Uni<Boolean> allowed = vouched().map(vouched -> vouchedFor(vouched, mine.get().code()).isPresent());
        return allowed.flatMap(ok -> {
            if (!ok) {
                return Uni.createFrom().item(Response.status(Response.Status.CONFLICT).build());
            }
            Optional<ChannelRequest> taken = requests.take(id, subject);
            if (taken.isEmpty()) {
                return Uni.createFrom().item(Response.status(Response.Status.NOT_FOUND).build());
            }
            ChannelRequest request = taken.get();
            return keycloak.answer("Bearer " + request.callbackToken(), Map.of("status", status))
                    .map(response -> {
                        try (response) {
                            if (response.getStatus() / 100 != 2) {
                                throw new IllegalStateException("Keycloak answered " + response.getStatus());
                            }
                        }
                        LOG.infof("Answered %s: %s", request, status);
                        return Response.noContent().build();
                    })
                    .onFailure().recoverWithItem(failure -> {
                        LOG.warnf("Could not answer %s: %s", request, failure.getMessage());
                        requests.putBack(request);
                        return Response.status(Response.Status.BAD_GATEWAY).build();
                    });
        });
    }

    /** What the executor says waits for the signed-in person. Unreachable: 503, and nothing can be answered. */
    private Uni<JsonNode> vouched() {
        return executor.pending("Bearer " + accessToken.getToken()).onFailure().transform(failure -> {
            LOG.warnf("The executor did not answer: %s", failure.getClass().getSimpleName());
            return new WebApplicationException(Response.Status.SERVICE_UNAVAILABLE);
        });
    }

    /** The executor's pending request with {@code code}, as it shows it, if it vouches for one. */
    private static Optional<JsonNode> vouchedFor(JsonNode vouched, String code) {
        if (vouched == null || !vouched.isArray()) {
            return Optional.empty();
        }
        for (JsonNode one : vouched) {
            if (code.equals(one.path("code").asText())) {
                return Optional.of(one);
            }
        }
        return Optional.empty();
    }
}
