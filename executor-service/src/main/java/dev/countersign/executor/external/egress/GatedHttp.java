package dev.countersign.executor.external.egress;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;

/** The only holder of the outbound HTTP client: sends only inside an open {@link GateScope}. */
@ApplicationScoped
public class GatedHttp {

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER).build();
    private final UngatedCalls ungated;

    public GatedHttp(UngatedCalls ungated) {
        this.ungated = ungated;
    }

    /**
     * Sends {@code request} (which carries its own timeout) and answers its body as text. Only to the origin (scheme,
     * host, port) the scope's kind declared: the gate's client is no general way out.
     */
    public Uni<HttpResponse<String>> send(GateScope scope, HttpRequest request) {
        return Uni.createFrom().deferred(() -> {
            ungated.check(scope, "HTTP");
            if (scope.httpOrigin().isEmpty() || !sameOrigin(scope.httpOrigin().get(), request.uri())) {
                throw new UngatedCallException("HTTP call refused: " + request.uri().getHost()
                        + " is not the origin the action's kind declares");
            }
            return Uni.createFrom().completionStage(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        });
    }

    private static boolean sameOrigin(URI allowed, URI requested) {
        return allowed.getScheme().equalsIgnoreCase(requested.getScheme())
                && allowed.getHost().equalsIgnoreCase(requested.getHost()) && allowed.getPort() == requested.getPort();
    }
}
