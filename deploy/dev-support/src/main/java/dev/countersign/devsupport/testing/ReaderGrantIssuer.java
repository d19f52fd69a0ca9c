package dev.countersign.devsupport.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.api.ReaderGrant;
import dev.countersign.contracts.api.ReaderGrantRequest;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.LocalPostgres;

/**
 * The agent's tests' stand-in for executor-service's {@code POST /api/reader-grants} (agent tests run no executor): it
 * checks the token as the executor does in the cases the agent's tests meet (RS256 signature with the tests' key, the
 * agent audience, not expired, the tenant claim and subject equal to the request's) and mints the grant through the
 * same database function as the executor's role ({@code open_reader_grant}, R__reader_grants.sql), so what the agent
 * reads is fenced by the real grant. The executor's own endpoint and its refusals are tested in executor-service
 * (ReaderGrantTest) and against the packaged services (deploy/local-stack).
 */
public final class ReaderGrantIssuer {

    private static final Duration MAX_LIFETIME = Duration.ofMinutes(15);

    private final HttpServer server;
    private final PublicKey key;
    private final String jdbcUrl;

    private ReaderGrantIssuer(HttpServer server, PublicKey key, String jdbcUrl) {
        this.server = server;
        this.key = key;
        this.jdbcUrl = jdbcUrl;
    }

    public static ReaderGrantIssuer start(PublicKey key, String jdbcUrl) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            ReaderGrantIssuer issuer = new ReaderGrantIssuer(server, key, jdbcUrl);
            server.createContext("/api/reader-grants", issuer::handle);
            server.start();
            return issuer;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The base URL the agent's {@code countersign.reader-grants.executor-url} takes. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            int status;
            String body;
            try {
                ReaderGrantRequest request = Json.read(
                        new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8),
                        ReaderGrantRequest.class);
                Instant expiresAt = verifiedExpiry(request);
                if (expiresAt == null) {
                    status = 401;
                    body = "{\"code\":\"unauthenticated\"}";
                } else {
                    Instant longest = Instant.now().plus(MAX_LIFETIME);
                    Instant ends = expiresAt.isBefore(longest) ? expiresAt : longest;
                    status = 200;
                    body = Json.write(new ReaderGrant(mint(request, ends), ends));
                }
            } catch (RuntimeException | SQLException e) {
                status = 400;
                body = "{\"code\":\"validation_failed\"}";
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }

    /** The token's expiry if it is a live agent token of the request's person, else null. */
    private Instant verifiedExpiry(ReaderGrantRequest request) {
        String[] parts = request.evidence() == null ? new String[0] : request.evidence().split("\\.");
        if (parts.length != 3) {
            return null;
        }
        try {
            Signature rsa = Signature.getInstance("SHA256withRSA");
            rsa.initVerify(key);
            rsa.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
            if (!rsa.verify(Base64.getUrlDecoder().decode(parts[2]))) {
                return null;
            }
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return null;
        }
        JsonNode claims = Json.read(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8),
                JsonNode.class);
        JsonNode audience = claims.path("aud");
        boolean agentAudience = audience.isArray()
                ? contains(audience, Audiences.AGENT)
                : Audiences.AGENT.equals(audience.asText());
        Instant expiresAt = Instant.ofEpochSecond(claims.path("exp").asLong(0));
        boolean ok = agentAudience && expiresAt.isAfter(Instant.now())
                && request.tenantId() != null && request.tenantId().equals(claims.path("tenant").asText(null))
                && request.userId() != null && request.userId().equals(claims.path("sub").asText(null));
        return ok ? expiresAt : null;
    }

    private static boolean contains(JsonNode array, String value) {
        for (JsonNode item : array) {
            if (value.equals(item.asText())) {
                return true;
            }
        }
        return false;
    }

    private String mint(ReaderGrantRequest request, Instant expiresAt) throws SQLException {
        return mint(jdbcUrl, request.tenantId(), request.userId(), expiresAt);
    }

    /**
     * A reader grant's secret for {@code userId} of {@code tenantId} for ten minutes, minted as the executor mints it
     * (its role, the database function): for tests that read as the agent's roles around the application.
     */
    public static String grant(String tenantId, String userId) throws SQLException {
        return mint(System.getProperty(TestProperties.JDBC_URL), tenantId, userId,
                Instant.now().plus(Duration.ofMinutes(10)));
    }

    private static String mint(String jdbcUrl, String tenantId, String userId, Instant expiresAt)
            throws SQLException {
        try (Connection sql = DriverManager.getConnection(jdbcUrl, LocalPostgres.EXECUTOR_ROLE,
                LocalPostgres.EXECUTOR_PASSWORD);
                var mint = sql.prepareStatement("SELECT open_reader_grant(?, ?, ?)")) {
            mint.setString(1, tenantId);
            mint.setString(2, userId);
            mint.setTimestamp(3, Timestamp.from(expiresAt));
            try (var rows = mint.executeQuery()) {
                rows.next();
                return rows.getString(1);
            }
        }
    }
}
