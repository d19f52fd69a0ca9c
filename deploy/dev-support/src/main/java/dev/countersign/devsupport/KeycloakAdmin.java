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

    /** Sets one attribute of the realm (its CIBA policy's, for instance), keeping the others. */
    synchronized void setRealmAttribute(String name, String value) {
        String token = adminToken();
        String realm = baseUrl + "/admin/realms/" + LocalKeycloak.REALM;
        ObjectNode representation = (ObjectNode) send(request(realm, token).GET(), 200);
        representation.with("attributes").put(name, value);
        send(request(realm, token).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(Json.write(representation))), 204);
    }

    /**
     * Opens anonymous dynamic client registration (RFC 7591, Keycloak's OpenID Connect endpoint; the others are off in
     * the build, {@link KeycloakCache#BUILD_OPTIONS}) to MCP clients on this machine, and puts it back as it should be
     * when run again (every start runs it). What an anonymously registered client gets and may not:
     * <ul>
     * <li>the scope {@code scope}, a client scope made here from the protocol mappers of {@code templateClientId} (the
     * realm file's MCP client: its audiences, tenant and groups), so the realm file stays their one source; a realm
     * file's {@code clientScopes} would drop Keycloak's built-in scopes, {@code basic} (which writes {@code sub}) among
     * them. It is an optional scope of {@code templateClientId} too, which may then ask for it;</li>
     * <li>Keycloak's anonymous policies, changed: "Trusted Hosts" names {@code trustedHosts} for the request and for
     * the redirect, root, base and admin URLs; "Allowed Client Scopes" allows {@code scope} and the realm's default
     * scopes, from which {@code offline_access} is taken out. Kept as Keycloak made them, and required (the start fails
     * without them): "Consent Required", "Max Clients" (200 in the realm), "Full Scope Disabled", "Allowed Protocol
     * Mapper Types" (which OpenID Connect registration cannot name, but for the pairwise subject Keycloak adds after
     * the policies ran);</li>
     * <li>a client policy, on registration and on every update with the registration access token: consent, PKCE S256,
     * no implicit flow, no password grant, stamped on the client.</li>
     * </ul>
     */
    /** The anonymous registration policies registration is opened under, Keycloak's defaults all. */
    static final Set<String> REQUIRED_ANONYMOUS_POLICIES = Set.of("trusted-hosts", "allowed-client-templates",
            "consent-required", "max-clients", "scope", "allowed-protocol-mappers");

    synchronized void openMcpRegistration(String scope, String templateClientId, List<String> trustedHosts) {
        String token = adminToken();
        String realm = baseUrl + "/admin/realms/" + LocalKeycloak.REALM;
        ObjectNode template = client(realm, token, templateClientId);
        String scopeId = mcpScope(realm, token, scope, templateClientId, template);
        send(request(realm + "/clients/" + template.get("id").asText() + "/optional-client-scopes/" + scopeId,
                token).PUT(HttpRequest.BodyPublishers.noBody()), 204);
        String offline = clientScopeId(realm, token, "offline_access");
        if (offline != null) {
            // 204 also when it is no default any more.
            send(request(realm + "/default-optional-client-scopes/" + offline, token).DELETE(), 204);
        }
        replaceByName(realm + "/client-policies/profiles", token, "profiles", Json.read("""
                {"name": "registered-mcp-clients",
                 "description": "Dev only: what a client registered anonymously must use (docs/mcp.md)",
                 "executors": [
                   {"executor": "consent-required", "configuration": {"auto-configure": "true"}},
                   {"executor": "pkce-enforcer", "configuration": {"auto-configure": "true"}},
                   {"executor": "reject-implicit-grant", "configuration": {"auto-configure": "true"}},
                   {"executor": "reject-ropc-grant", "configuration": {"auto-configure": "true"}}]}
                """, ObjectNode.class));
        replaceByName(realm + "/client-policies/policies", token, "policies", Json.read("""
                {"name": "registered-mcp-clients", "enabled": true,
                 "description": "Dev only: clients registered anonymously, and their own updates",
                 "conditions": [{"condition": "client-updater-context",
                                 "configuration": {"update-client-source": ["ByAnonymous",
                                                                            "ByRegistrationAccessToken"]}}],
                 "profiles": ["registered-mcp-clients"]}
                """, ObjectNode.class));
        JsonNode policies = send(request(realm + "/components?type="
                + encode("org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy"), token).GET(),
                200);
        Set<String> anonymous = new java.util.TreeSet<>();
        for (JsonNode policy : policies) {
            if (!"anonymous".equals(policy.path("subType").asText())) {
                continue;
            }
            anonymous.add(policy.path("providerId").asText());
            String component = realm + "/components/" + policy.get("id").asText();
            switch (policy.path("providerId").asText()) {
                case "trusted-hosts" -> configure(component, token, (ObjectNode) policy, Map.of("trusted-hosts",
                        trustedHosts, "host-sending-registration-request-must-match", List.of("true"),
                        "client-uris-must-match", List.of("true")));
                case "allowed-client-templates" -> configure(component, token, (ObjectNode) policy, Map.of(
                        "allowed-client-scopes", List.of(scope), "allow-default-scopes", List.of("true")));
                default -> {
                    // Kept as Keycloak made them.
                }
            }
        }
        if (!anonymous.containsAll(REQUIRED_ANONYMOUS_POLICIES)) {
            throw new IllegalStateException("The realm's anonymous client registration policies are not Keycloak's ("
                    + anonymous + ", needs " + REQUIRED_ANONYMOUS_POLICIES + "): delete the Keycloak instance"
                    + " directory (the local stack's .countersign/keycloak) so that it starts from the realm file");
        }
    }

    /**
     * The id of the client scope {@code name}, made first if missing; its protocol mappers set to the template's (a
     * scope made by hand, or by an earlier version of this class, is put right).
     */
    private String mcpScope(String realm, String token, String name, String templateClientId, ObjectNode template) {
        String scopeId = clientScopeId(realm, token, name);
        if (scopeId == null) {
            ObjectNode created = Json.mapper().createObjectNode().put("name", name).put("protocol", "openid-connect")
                    .put("description", "Dev only. What " + templateClientId
                            + "'s mappers write, for MCP clients registered anonymously (docs/mcp.md).");
            created.putObject("attributes").put("include.in.token.scope", "true")
                    .put("display.on.consent.screen", "true");
            send(request(realm + "/client-scopes", token).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(Json.write(created))), 201);
            scopeId = clientScopeId(realm, token, name);
        }
        // Shown on the consent screen (a registered client asks only for this scope: without it, no consent screen).
        ObjectNode current = (ObjectNode) send(request(realm + "/client-scopes/" + scopeId, token).GET(), 200);
        current.put("protocol", "openid-connect").with("attributes").put("include.in.token.scope", "true")
                .put("display.on.consent.screen", "true");
        send(request(realm + "/client-scopes/" + scopeId, token).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(Json.write(current))), 204);
        String mappers = realm + "/client-scopes/" + scopeId + "/protocol-mappers/models";
        for (JsonNode mapper : send(request(mappers, token).GET(), 200)) {
            send(request(mappers + "/" + mapper.get("id").asText(), token).DELETE(), 204);
        }
        ArrayNode wanted = Json.mapper().createArrayNode();
        template.withArray("protocolMappers").forEach(mapper -> wanted.add(((ObjectNode) mapper.deepCopy())
                .without(List.of("id"))));
        send(request(realm + "/client-scopes/" + scopeId + "/protocol-mappers/add-models", token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(wanted))), 204);
        return scopeId;
    }

    /** Puts {@code entry} into the list {@code member} of the document at {@code url}, replacing one of its name. */
    private void replaceByName(String url, String token, String member, ObjectNode entry) {
        ObjectNode document = (ObjectNode) send(request(url, token).GET(), 200);
        ArrayNode kept = Json.mapper().createArrayNode();
        document.withArray(member).forEach(existing -> {
            if (!existing.path("name").asText().equals(entry.get("name").asText())) {
                kept.add(existing);
            }
        });
        kept.add(entry);
        document.set(member, kept);
        send(request(url, token).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(Json.write(document))), 204);
    }

    /** Sets these keys of a component's configuration (an empty list included), keeping its others. */
    private void configure(String component, String token, ObjectNode policy, Map<String, List<String>> config) {
        ObjectNode values = policy.with("config");
        config.forEach((key, list) -> {
            ArrayNode array = values.putArray(key);
            list.forEach(array::add);
        });
        send(request(component, token).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(Json.write(policy))), 204);
    }

    private static HttpRequest.Builder request(String url, String token) {
        return HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token);
    }

    private ObjectNode client(String realm, String token, String clientId) {
        JsonNode found = send(request(realm + "/clients?clientId=" + encode(clientId), token).GET(), 200);
        if (found.size() != 1) {
            throw new IllegalArgumentException("No client " + clientId + " in realm " + LocalKeycloak.REALM);
        }
        return (ObjectNode) found.get(0);
    }

    private String clientScopeId(String realm, String token, String name) {
        for (JsonNode scope : send(request(realm + "/client-scopes", token).GET(), 200)) {
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
