package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.DevTokens;

/**
 * The dev token endpoint answers only requests addressed to this machine's loopback (no DNS rebinding), and never gives
 * a browser page a token that decides.
 */
class DevTokenServerTest {

    private static final String CHAT = "http://localhost:8080";

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "localhost:8079", "127.0.0.1:8079", "[::1]:8079"})
    void loopbackHostsAreServed(String host) {
        assertThat(DevTokenServer.isLoopbackHost(host)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"attacker.example:8079", "localhost.attacker.example", "127.0.0.1.nip.io:8079", ""})
    void anyOtherHostIsRefused(String host) {
        assertThat(DevTokenServer.isLoopbackHost(host)).isFalse();
    }

    private static DevTokenServer.Tokens minted() {
        DevTokens keys = DevTokens.generate();
        return (tenant, user, audience) -> keys.mint(tenant, user, audience, DevTokenServer.LIFETIME);
    }

    @Test
    void aPageGetsTheChatsTokenOnlyACommandLineClientBoth() throws Exception {
        try (var server = DevTokenServer.start(0, minted(), List.of(CHAT))) {
            JsonNode fromThePage = token(server, CHAT);
            JsonNode fromTheCommandLine = token(server, null);

            assertThat(fromThePage.hasNonNull("agentToken")).isTrue();
            assertThat(fromThePage.has("executorToken")).isFalse();
            assertThat(fromTheCommandLine.hasNonNull("agentToken")).isTrue();
            assertThat(fromTheCommandLine.hasNonNull("executorToken")).isTrue();
        }
    }

    @Test
    void withAnIdentityProviderNoPageGetsATokenAndAnUnknownUserIsAClearError() throws Exception {
        DevTokenServer.Tokens keycloakLike = (tenant, user, audience) -> {
            if (!"alice".equals(user)) {
                throw new IllegalArgumentException("Keycloak has no demo user " + user);
            }
            return minted().bearer(tenant, user, audience);
        };
        try (var server = DevTokenServer.start(0, keycloakLike, List.of())) {
            assertThat(send(server, CHAT, "alice").statusCode()).isEqualTo(403);
            assertThat(token(server, null).hasNonNull("executorToken")).isTrue();
            HttpResponse<String> unknown = send(server, null, "mallory");
            assertThat(unknown.statusCode()).isEqualTo(400);
            assertThat(Json.mapper().readTree(unknown.body()).path("detail").asText()).contains("no demo user mallory");
        }
    }

    private static JsonNode token(DevTokenServer server, String origin) throws Exception {
        HttpResponse<String> response = send(server, origin, "alice");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Json.mapper().readTree(response.body());
    }

    private static HttpResponse<String> send(DevTokenServer server, String origin, String user) throws Exception {
        var request = HttpRequest.newBuilder(URI.create("http://localhost:" + server.port() + "/dev/token"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"tenant\":\"acme\",\"user\":\"" + user + "\"}"));
        if (origin != null) {
            request.header("Origin", origin);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
