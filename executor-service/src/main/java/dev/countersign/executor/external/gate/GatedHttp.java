package dev.countersign.executor.external.gate;

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
    private final ExternalGate gate;

    public GatedHttp(ExternalGate gate) {
        this.gate = gate;
    }

    /** Sends {@code request} (which carries its own timeout) and answers its body as text. */
    public Uni<HttpResponse<String>> send(GateScope scope, HttpRequest request) {
        return Uni.createFrom().deferred(() -> {
            gate.check(scope, "HTTP");
            return Uni.createFrom().completionStage(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        });
    }
}
