package dev.countersign.devsupport;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.json.Json;

/**
 * Changes a client of the running realm through Keycloak's admin REST API, signed in as the bootstrap administrator of
 * the master realm. Used for what is known only after start: the redirect URIs of services on random ports. Exact URIs
 * rather than {@code http://localhost:*} in the realm file, which would let any local port (any local process) receive
 * codes.
 */
final class KeycloakAdmin {

    private final String baseUrl;
    private final HttpClient http;

    KeycloakAdmin(String baseUrl, HttpClient http) {
        this.baseUrl = baseUrl;
        this.http = http;
    }

    /** Adds URIs to the client's {@code redirectUris} and its {@code post.logout.redirect.uris} attribute. */
    synchronized void allow(String clientId, Set<String> redirectUris, Set<String> postLogoutRedirectUris) {
        String token = adminToken();
        String clients = baseUrl + "/admin/realms/" + LocalKeycloak.REALM + "/clients";
        JsonNode found = send(HttpRequest.newBuilder(URI.create(clients + "?clientId=" + encode(clientId)))
                .header("Authorization", "Bearer " + token).GET(), 200);
        if (found.size() != 1) {
            throw new IllegalArgumentException("No client " + clientId + " in realm " + LocalKeycloak.REALM);
        }
        ObjectNode client = (ObjectNode) found.get(0);
        Set<String> redirects = new LinkedHashSet<>();
        client.withArray("redirectUris").forEach(uri -> redirects.add(uri.asText()));
        redirects.addAll(redirectUris);
        ArrayNode redirectArray = client.putArray("redirectUris");
        redirects.forEach(redirectArray::add);
        ObjectNode attributes = client.get("attributes") instanceof ObjectNode existing
                ? existing
                : client.putObject("attributes");
        Set<String> postLogout = new LinkedHashSet<>();
        for (String uri : attributes.path("post.logout.redirect.uris").asText("").split("##")) {
            if (!uri.isBlank()) {
                postLogout.add(uri);
            }
        }
        postLogout.addAll(postLogoutRedirectUris);
        attributes.put("post.logout.redirect.uris", String.join("##", postLogout));
        send(HttpRequest.newBuilder(URI.create(clients + "/" + client.get("id").asText()))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(Json.write(client))), 204);
    }

    private String adminToken() {
        JsonNode tokens = send(HttpRequest.newBuilder(
                URI.create(baseUrl + "/realms/master/protocol/openid-connect/token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(form(Map.of("grant_type", "password", "client_id", "admin-cli", "username",
                        LocalKeycloak.ADMIN_USER, "password", LocalKeycloak.ADMIN_PASSWORD))),
                200);
        return tokens.get("access_token").asText();
    }

    private JsonNode send(HttpRequest.Builder request, int expected) {
        try {
            HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != expected) {
                throw new IllegalStateException("Keycloak admin API: HTTP " + response.statusCode() + " from "
                        + response.request().uri() + ": " + response.body());
            }
            return response.body().isEmpty() ? Json.mapper().nullNode() : Json.mapper().readTree(response.body());
        } catch (IOException e) {
            throw new IllegalStateException("Keycloak admin API unreachable at " + baseUrl, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    static HttpRequest.BodyPublisher form(Map<String, String> fields) {
        return HttpRequest.BodyPublishers.ofString(fields.entrySet().stream()
                .map(field -> encode(field.getKey()) + "=" + encode(field.getValue()))
                .collect(Collectors.joining("&")));
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
