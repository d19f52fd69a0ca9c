package dev.countersign.localstack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.JsonHttp;

/**
 * {@code POST /dev/token {"tenant": "acme", "user": "alice"}} on the loopback interface: bearer tokens for any demo
 * user, one for each service ({@code agentToken}, {@code executorToken}), for the README's command-line walkthrough and
 * the tests. Dev only: it exists only in the local stack's launcher; neither service contains a way to mint tokens.
 * With Keycloak it obtains them there by the password grant (the demo users' dev-only passwords) and answers no page (a
 * request with {@code Origin} is refused: both pages sign in at Keycloak). Without Keycloak it mints them with the
 * stack's dev key, and the chat signs in here from the agent's origin (the dev-only demo sign-in): that origin (and
 * only it) gets CORS headers, and a request from a page gets the agent token only.
 * <p>
 * Limit: it hands a token of any demo user to anything on this machine that asks without a browser, a compromised agent
 * process included. The local stack runs every process on one machine as one user; the separation it shows holds
 * against the agent's model and pages, not against a compromised process beside the executor (which could read the
 * executor's memory too). Kubernetes keeps them apart (docs/security/decision-origin.md).
 */
final class DevTokenServer implements AutoCloseable {

    /** As long as the services' default maximum token age (JWT_MAX_TOKEN_AGE, 3600 s) lets a token live. */
    static final Duration LIFETIME = Duration.ofHours(1);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private final HttpServer server;

    private DevTokenServer(HttpServer server) {
        this.server = server;
    }

    /** A demo user's bearer token for one audience; IllegalArgumentException for an unknown user or tenant. */
    interface Tokens {

        String bearer(String tenant, String user, String audience);
    }

    /**
     * @param allowedOrigins
     *            the pages that may sign in here (CORS); none: no page may, and a request with {@code Origin} is
     *            refused
     */
    static DevTokenServer start(int port, Tokens tokens, List<String> allowedOrigins) {
        try {
            HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
            http.createContext("/dev/token", exchange -> {
                allowOrigin(exchange, allowedOrigins);
                answer(exchange, tokens, !allowedOrigins.isEmpty());
            });
            http.start();
            return new DevTokenServer(http);
        } catch (IOException e) {
            throw new UncheckedIOException("The dev token endpoint did not start on port " + port, e);
        }
    }

    int port() {
        return server.getAddress().getPort();
    }

    private static void allowOrigin(HttpExchange exchange, List<String> allowedOrigins) {
        String origin = exchange.getRequestHeaders().getFirst("Origin");
        if (origin != null && allowedOrigins.contains(origin)) {
            exchange.getResponseHeaders().set("Access-Control-Allow-Origin", origin);
            exchange.getResponseHeaders().set("Vary", "Origin");
            exchange.getResponseHeaders().set("Access-Control-Allow-Methods", "POST");
            exchange.getResponseHeaders().set("Access-Control-Allow-Headers", "Content-Type");
        }
    }

    /** Whether the request names this machine's loopback as its host (with any port). */
    static boolean isLoopbackHost(String host) {
        if (host == null) {
            return false;
        }
        String name = host.startsWith("[")
                ? host.substring(0, host.indexOf(']') + 1)
                : host.contains(":") ? host.substring(0, host.indexOf(':')) : host;
        return name.equals("localhost") || name.equals("127.0.0.1") || name.equals("[::1]");
    }

    private static void answer(HttpExchange exchange, Tokens tokens, boolean pages) throws IOException {
        try (exchange) {
            if (!isLoopbackHost(exchange.getRequestHeaders().getFirst("Host"))) {
                // A page on another site whose name resolves to 127.0.0.1 (DNS rebinding) must not mint tokens here.
                JsonHttp.send(exchange, 403, "{\"code\":\"forbidden\",\"detail\":\"use localhost or 127.0.0.1\"}");
                return;
            }
            boolean fromPage = exchange.getRequestHeaders().getFirst("Origin") != null;
            if (fromPage && !pages) {
                JsonHttp.send(exchange, 403, "{\"code\":\"forbidden\",\"detail\":\"pages sign in at the identity"
                        + " provider here\"}");
                return;
            }
            if ("OPTIONS".equals(exchange.getRequestMethod())) {
                // A CORS preflight: the headers above are the answer (none for an origin not allowed).
                exchange.sendResponseHeaders(204, -1);
                return;
            }
            if (!"POST".equals(exchange.getRequestMethod())) {
                JsonHttp.send(exchange, 405, "{\"code\":\"method_not_allowed\",\"detail\":\"POST a JSON body\"}");
                return;
            }
            JsonNode body;
            try (InputStream in = exchange.getRequestBody()) {
                body = Json.mapper().readTree(in);
            } catch (IOException e) {
                body = null;
            }
            String tenant = body == null ? "" : body.path("tenant").asText("");
            String user = body == null ? "" : body.path("user").asText("");
            if (!NAME.matcher(tenant).matches() || !NAME.matcher(user).matches()) {
                JsonHttp.send(exchange, 400,
                        "{\"code\":\"validation_failed\",\"detail\":\"send {\\\"tenant\\\": \\\"acme\\\","
                                + " \\\"user\\\": \\\"alice\\\"}\"}");
                return;
            }
            ObjectNode answer = Json.mapper().createObjectNode();
            try {
                String agentToken = tokens.bearer(tenant, user, Audiences.AGENT);
                answer.put("agentToken", agentToken);
                // A browser page (it sends Origin) gets the chat's token only: no page, the agent's included, obtains
                // a token that decides. Command-line clients and tests (no Origin) get the executor's too.
                if (!fromPage) {
                    answer.put("executorToken", tokens.bearer(tenant, user, Audiences.EXECUTOR));
                }
                long expiresAt = JwtClaims.of(agentToken).path("exp").asLong();
                answer.put("expiresInSeconds", Math.max(0, expiresAt - java.time.Instant.now().getEpochSecond()));
            } catch (IllegalArgumentException e) {
                JsonHttp.send(exchange, 400, Json.write(Json.mapper().createObjectNode()
                        .put("code", "validation_failed").put("detail", e.getMessage())));
                return;
            }
            JsonHttp.send(exchange, 200, Json.write(answer.put("tenant", tenant).put("user", user)));
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
