package dev.countersign.executor.external.egress;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;

import io.quarkus.rest.client.reactive.QuarkusRestClientBuilder;

/**
 * The only maker of outbound HTTP clients: Quarkus REST Clients bound to one {@link GateScope}, which serve a request
 * only while that scope is open and only to the origin (scheme, host, port) its kind declared: the gate's clients are
 * no general way out.
 */
@ApplicationScoped
public class GatedHttp {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private final UngatedCalls ungated;

    public GatedHttp(UngatedCalls ungated) {
        this.ungated = ungated;
    }

    /** A client of {@code api} for {@code scope}'s declared origin; see {@link GateScope#http}. */
    <T> T client(GateScope scope, Class<T> api, Duration timeout) {
        ungated.check(scope, "HTTP");
        URI declared = scope.httpOrigin().orElseThrow(() -> new UngatedCallException(
                "HTTP call refused: the action's kind declares no origin"));
        return originBound(api, declared, CONNECT_TIMEOUT, timeout, new Gate(scope, declared));
    }

    /**
     * The one way a REST client is built in this service: for {@code origin}, every request checked by {@code check} as
     * it is sent, no redirect followed, every answer returned as it came (a status is the caller's to judge).
     */
    static <T> T originBound(Class<T> api, URI origin, Duration connectTimeout, Duration readTimeout,
            ClientRequestFilter check) {
        return QuarkusRestClientBuilder.newBuilder().baseUri(origin)
                .connectTimeout(connectTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .readTimeout(readTimeout.toMillis(), TimeUnit.MILLISECONDS).followRedirects(false)
                .disableDefaultMapper(true).register(check).build(api);
    }

    /** Checks every request a scope's client sends, as it is sent. */
    private final class Gate implements ClientRequestFilter {

        private final GateScope scope;
        private final URI declared;

        Gate(GateScope scope, URI declared) {
            this.scope = scope;
            this.declared = declared;
        }

        @Override
        public void filter(ClientRequestContext request) {
            ungated.check(scope, "HTTP");
            if (!Origins.same(declared, request.getUri())) {
                throw ungated.refuse("HTTP call to " + request.getUri().getHost(),
                        "not the origin this scope allows");
            }
        }
    }
}
