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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.json.Json;

/**
 * Changes a client of the running realm through Keycloak's admin REST API, signed in as the bootstrap administrator of
 * the master realm. Used for what is known only after start: the redirect URIs of services on random ports (exact URIs
 * rather than {@code http://localhost:*} in the realm file, which would let any local port (any local process) receive
 * codes); and for what a realm file cannot say without dropping Keycloak's defaults: the client scope and anonymous
 * registration policies of dynamic client registration.
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
        String realm = baseUrl + "/admin/realms/" + LocalKeycloak.REALM;
        ObjectNode client = client(realm, token, clientId);
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
        send(HttpRequest.newBuilder(URI.create(realm + "/clients/" + client.get("id").asText()))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(Json.write(client))), 204);
    }

    /**
     * Opens anonymous dynamic client registration (RFC 7591) to MCP clients on this machine, as far as the dev realm
     * allows it, and is a no-op when it already did. Keycloak's own anonymous policies, changed:
     * <ul>
     * <li>"Trusted Hosts": the request must come from, and every redirect URI name, one of {@code trustedHosts};</li>
     * <li>"Allowed Client Scopes": {@code scope} and the realm's default scopes, from which {@code offline_access} is
     * taken out;</li>
     * <li>"Consent Required" removed, so a registered client signs in as the pre-registered one does.</li>
     * </ul>
     * Its other anonymous policies stay: at most 200 clients in the realm, no full scope, no protocol mappers or client
     * scopes of the registrant's choosing. {@code scope} is a client scope made here from the protocol mappers of
     * {@code templateClientId} (the realm file's MCP client: its audiences, tenant and groups), so the realm file stays
     * their one source; a realm file's {@code clientScopes} would drop Keycloak's built-in scopes, {@code basic} (which
     * writes {@code sub}) among them. It is an optional scope of {@code templateClientId} too, which may then ask for
     * it.
     */
    synchronized void openMcpRegistration(String scope, String templateClientId, List<String> trustedHosts) {
        String token = adminToken();
        String realm = baseUrl + "/admin/realms/" + LocalKeycloak.REALM;
        ObjectNode template = client(realm, token, templateClientId);
        String scopeId = clientScopeId(realm, token, scope);
        if (scopeId == null) {
            ObjectNode created = Json.mapper().createObjectNode().put("name", scope).put("protocol", "openid-connect")
                    .put("description", "Dev only. What " + templateClientId
                            + "'s mappers write, for MCP clients registered anonymously (docs/mcp.md).");
            created.putObject("attributes").put("include.in.token.scope", "true")
                    .put("display.on.consent.screen", "false");
            ArrayNode mappers = created.putArray("protocolMappers");
            template.withArray("protocolMappers").forEach(mapper -> mappers.add(((ObjectNode) mapper.deepCopy())
                    .without(List.of("id"))));
            send(HttpRequest.newBuilder(URI.create(realm + "/client-scopes")).header("Authorization", "Bearer " + token)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(Json.write(created))), 201);
            scopeId = clientScopeId(realm, token, scope);
        }
        send(HttpRequest.newBuilder(URI.create(realm + "/clients/" + template.get("id").asText()
                + "/optional-client-scopes/" + scopeId)).header("Authorization", "Bearer " + token)
                .PUT(HttpRequest.BodyPublishers.noBody()), 204);
        // A client registered anonymously gets PKCE S256 required, as the pre-registered MCP client has it.
        send(HttpRequest.newBuilder(URI.create(realm + "/client-policies/profiles"))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("""
                        {"profiles": [{"name": "registered-clients-use-pkce",
                          "description": "Dev only: PKCE S256 on clients registered anonymously (docs/mcp.md)",
                          "executors": [{"executor": "pkce-enforcer", "configuration": {"auto-configure": "true"}}]}]}
                        """)), 204);
        send(HttpRequest.newBuilder(URI.create(realm + "/client-policies/policies"))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("""
                        {"policies": [{"name": "anonymous-registrations", "enabled": true,
                          "conditions": [{"condition": "client-updater-context",
                                          "configuration": {"update-client-source": ["ByAnonymous"]}}],
                          "profiles": ["registered-clients-use-pkce"]}]}
                        """)), 204);
        // Nor may a registered client ask for offline tokens: offline_access is no longer a realm default (clients
        // of the realm file keep what they were imported with).
        String offline = clientScopeId(realm, token, "offline_access");
        if (offline != null) {
            send(HttpRequest.newBuilder(URI.create(realm + "/default-optional-client-scopes/" + offline))
                    .header("Authorization", "Bearer " + token).DELETE(), 204);
        }
        JsonNode policies = send(HttpRequest.newBuilder(URI.create(realm + "/components?type="
                + encode("org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy")))
                .header("Authorization", "Bearer " + token).GET(), 200);
        for (JsonNode policy : policies) {
            if (!"anonymous".equals(policy.path("subType").asText())) {
                continue;
            }
            String component = realm + "/components/" + policy.get("id").asText();
            switch (policy.path("providerId").asText()) {
                case "trusted-hosts" -> update(component, token, (ObjectNode) policy, Map.of("trusted-hosts",
                        trustedHosts, "host-sending-registration-request-must-match", List.of("true"),
                        "client-uris-must-match", List.of("true")));
                case "allowed-client-templates" -> update(component, token, (ObjectNode) policy, Map.of(
                        "allowed-client-scopes", List.of(scope), "allow-default-scopes", List.of("true")));
                case "consent-required" -> send(HttpRequest.newBuilder(URI.create(component))
                        .header("Authorization", "Bearer " + token).DELETE(), 204);
                default -> {
                    // Kept as Keycloak made them.
                }
            }
        }
    }

    private void update(String component, String token, ObjectNode policy, Map<String, List<String>> config) {
        ObjectNode values = policy.putObject("config");
        config.forEach((key, list) -> list.forEach(values.withArray(key)::add));
        send(HttpRequest.newBuilder(URI.create(component)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(Json.write(policy))), 204);
    }

    private ObjectNode client(String realm, String token, String clientId) {
        JsonNode found = send(HttpRequest.newBuilder(URI.create(realm + "/clients?clientId=" + encode(clientId)))
                .header("Authorization", "Bearer " + token).GET(), 200);
        if (found.size() != 1) {
            throw new IllegalArgumentException("No client " + clientId + " in realm " + LocalKeycloak.REALM);
        }
        return (ObjectNode) found.get(0);
    }

    private String clientScopeId(String realm, String token, String name) {
        for (JsonNode scope : send(HttpRequest.newBuilder(URI.create(realm + "/client-scopes"))
                .header("Authorization", "Bearer " + token).GET(), 200)) {
            if (name.equals(scope.path("name").asText())) {
                return scope.get("id").asText();
            }
        }
        return null;
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
