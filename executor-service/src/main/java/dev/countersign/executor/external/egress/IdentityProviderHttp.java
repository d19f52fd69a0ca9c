package dev.countersign.executor.external.egress;

import java.net.URI;
import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;

/**
 * The one way out of executor-service that is neither an action's call nor a notification's: the identity provider's
 * own endpoints (OpenID CIBA's backchannel and token endpoints, for second-device approvals), at the origin the
 * configuration names. No gate scope (no action or tenant owns these calls, and the provider is the one the service
 * already trusts for sign-in), but the same shape as a scope's client: one origin, fixed when the client is made, every
 * request checked against it as it is sent, no redirect followed.
 */
@ApplicationScoped
public class IdentityProviderHttp {

    /** A client of {@code api} for {@code origin}'s scheme, host and port only. */
    public <T> T client(Class<T> api, URI origin, Duration timeout) {
        Duration connect = timeout.compareTo(GatedHttp.CONNECT_TIMEOUT) < 0 ? timeout : GatedHttp.CONNECT_TIMEOUT;
        return GatedHttp.originBound(api, origin, connect, timeout, new SameOrigin(origin));
    }

    /** Refuses a request to any other origin than the provider's. */
    private record SameOrigin(URI origin) implements ClientRequestFilter {

        @Override
        public void filter(ClientRequestContext request) {
            if (!Origins.same(origin, request.getUri())) {
                throw new IllegalStateException("The identity provider's client refused a request to "
                        + request.getUri().getHost() + ": not the provider's origin");
            }
        }
    }
}
