package dev.countersign.executor.seconddevice;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.json.Json;
import dev.countersign.executor.external.egress.IdentityProviderHttp;
import dev.countersign.executor.external.egress.Origins;
import io.smallrye.mutiny.Uni;

/**
 * The two calls of OpenID CIBA in poll mode (OpenID Connect Client-Initiated Backchannel Authentication Core 1.0): the
 * backchannel authentication request (section 7), and the token request with the CIBA grant (section 10), each a form
 * post with the executor's client credentials.
 * <p>
 * Written here rather than through quarkus-oidc-client's CIBA grant: that client reports the provider's
 * {@code authorization_pending}, {@code slow_down}, {@code access_denied} and {@code expired_token} only inside an
 * exception's message, and has no backchannel authentication request; the poller needs each answer by its code.
 * <p>
 * Limit: the provider is trusted as the signing-in provider is (it is the same one); these calls go through
 * {@link IdentityProviderHttp} (the provider's origin only), not through a gate scope, which guards what actions and
 * notifications send. Both endpoints must be on one origin.
 */
@ApplicationScoped
public class Backchannel {

    /** The CIBA grant type (section 10.1). */
    static final String GRANT_TYPE = "urn:openid:params:grant-type:ciba";

    private final SecondDeviceConfig config;
    private final URI backchannel;
    private final URI token;
    private final CibaEndpoint endpoint;

    public Backchannel(SecondDeviceConfig config, IdentityProviderHttp http,
            @ConfigProperty(name = "quarkus.oidc.auth-server-url") java.util.Optional<String> issuer) {
        this.config = config;
        String base = issuer.map(url -> url.endsWith("/") ? url.substring(0, url.length() - 1) : url).orElse("");
        this.backchannel = config.backchannelEndpoint()
                .orElse(URI.create(base + "/protocol/openid-connect/ext/ciba/auth"));
        this.token = config.tokenEndpoint().orElse(URI.create(base + "/protocol/openid-connect/token"));
        this.endpoint = http.client(CibaEndpoint.class, backchannel, config.timeout());
    }

    /**
     * Whether both endpoints are absolute http(s) URLs of one origin, the provider's (checked at start when second
     * devices are on).
     */
    boolean endpointsUsable() {
        return Stream.of(backchannel, token).allMatch(url -> url.isAbsolute() && url.getHost() != null
                && ("https".equals(url.getScheme()) || "http".equals(url.getScheme())))
                && Origins.same(backchannel, token);
    }

    /** What the provider answered a backchannel authentication request with. */
    public sealed interface Started {
    }

    /** Accepted: the request's handle, how long it lives and how often it may be polled. */
    public record Accepted(String authReqId, int expiresIn, int interval) implements Started {
    }

    /** Refused: the provider's error code (an unknown user, a refused binding message), or its status if none. */
    public record Refused(String error, boolean retryable) implements Started {
    }

    /**
     * Asks the provider to have the person {@code loginHint} names approve, showing {@code bindingCode}, within
     * {@code expiry}.
     */
    public Uni<Started> start(String loginHint, String bindingCode, Duration expiry) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("scope", "openid");
        form.put("login_hint", loginHint);
        form.put("binding_message", bindingCode);
        form.put("requested_expiry", Long.toString(Math.max(1, expiry.toSeconds())));
        return post(backchannel, form).map(answer -> {
            if (answer.status() == 200 && answer.body().hasNonNull("auth_req_id")) {
                JsonNode body = answer.body();
                return new Accepted(body.get("auth_req_id").asText(), body.path("expires_in").asInt(0),
                        Math.max(1, body.path("interval").asInt(5)));
            }
            // A provider that is down or overloaded answers 5xx (Keycloak 503 when its channel fails): tried again.
            return new Refused(answer.error(), answer.status() >= 500 || answer.status() == 429);
        });
    }

    /** What a poll of the token endpoint answered. */
    public sealed interface Polled {
    }

    /** The person approved: the access token the provider issued for it. */
    public record Approved(String accessToken) implements Polled {
    }

    /**
     * Not yet, or another answer than a token: {@code authorization_pending}, {@code slow_down}, {@code access_denied},
     * {@code expired_token}, {@code invalid_grant} and the like, or the status when the provider named no error.
     */
    public record Answered(String error) implements Polled {

        public static final String PENDING = "authorization_pending";
        public static final String SLOW_DOWN = "slow_down";
        public static final String DENIED = "access_denied";
        public static final String EXPIRED = "expired_token";
    }

    /** Polls the token endpoint for the request {@code authReqId}. */
    public Uni<Polled> poll(String authReqId) {
        return post(token, Map.of("grant_type", GRANT_TYPE, "auth_req_id", authReqId)).map(answer -> {
            if (answer.status() == 200 && answer.body().hasNonNull("access_token")) {
                return new Approved(answer.body().get("access_token").asText());
            }
            return new Answered(answer.error());
        });
    }

    private record Answer(int status, JsonNode body) {

        /** The OAuth error code, or {@code http_<status>}; never the description, which may quote the request. */
        String error() {
            String error = body.path("error").asText("");
            return error.matches("[a-z_]{1,64}") ? error : "http_" + status;
        }
    }

    private Uni<Answer> post(URI url, Map<String, String> form) {
        String credentials = "Basic " + Base64.getEncoder().encodeToString((encode(config.clientId()) + ":"
                + encode(config.clientSecret().orElse(""))).getBytes(StandardCharsets.UTF_8));
        String body = form.entrySet().stream().map(field -> encode(field.getKey()) + "=" + encode(field.getValue()))
                .collect(Collectors.joining("&"));
        return endpoint.post(url.toString(), credentials, body).map(response -> {
            try (Response closed = response) {
                String text = closed.hasEntity() ? closed.readEntity(String.class) : "";
                JsonNode json;
                try {
                    json = text.isBlank() ? Json.mapper().createObjectNode() : Json.mapper().readTree(text);
                } catch (java.io.IOException notJson) {
                    json = Json.mapper().createObjectNode();
                }
                return new Answer(closed.getStatus(), json == null ? Json.mapper().createObjectNode() : json);
            }
        });
    }

    /** application/x-www-form-urlencoded, as RFC 6749 (2.3.1) asks for the client id and secret too. */
    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
