package dev.countersign.devsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.Groups;
import dev.countersign.contracts.json.Json;

/** Starts the real Keycloak once and checks what the services will rely on. */
class LocalKeycloakTest {

    private static final Pattern LOGIN_FORM = Pattern
            .compile("<form[^>]*id=\"kc-form-login\"[^>]*action=\"([^\"]+)\"");
    /** Keycloak's consent screen (login-oauth-grant): its form's action and the session code it posts back. */
    private static final Pattern CONSENT_FORM = Pattern.compile(
            "<form[^>]*action=\"([^\"]+)\"[^>]*>\\s*<input type=\"hidden\" name=\"code\" value=\"([^\"]+)\"");
    private static final AtomicInteger CALLBACK_PORTS = new AtomicInteger(41000);

    private static LocalKeycloak keycloak;

    @BeforeAll
    static void start() {
        long started = System.nanoTime();
        keycloak = LocalKeycloak.start(0, null);
        System.out.printf("LocalKeycloak.start took %d ms, Keycloak JVM resident %d MiB (cache %s)%n",
                (System.nanoTime() - started) / 1_000_000, keycloak.residentKilobytes() / 1024,
                KeycloakCache.inUserCache().root());
    }

    @AfterAll
    static void stop() {
        if (keycloak != null) {
            long started = System.nanoTime();
            keycloak.close();
            System.out.printf("LocalKeycloak.close took %d ms%n", (System.nanoTime() - started) / 1_000_000);
        }
    }

    @Test
    void alicesPasswordGrantGivesHerIdTenantGroupsAndTheExecutorAudience() {
        JsonNode claims = claims(keycloak.passwordGrant("alice", LocalKeycloak.password("alice")));

        assertThat(claims.path("sub").asText()).isEqualTo("alice");
        assertThat(claims.path("tenant").asText()).isEqualTo("acme");
        assertThat(strings(claims.path("groups"))).contains(Groups.USER, Groups.APPROVER, Groups.ADMIN);
        assertThat(strings(claims.path("aud"))).containsExactly(Audiences.EXECUTOR);
        assertThat(claims.path("iss").asText()).isEqualTo(keycloak.issuer())
                .isEqualTo("http://127.0.0.1:" + keycloak.port() + "/realms/countersign");
        assertThat(claims.path("exp").asLong() - claims.path("iat").asLong()).isEqualTo(300);
    }

    @Test
    void eachServicesBearerTokenNamesOnlyThatServicesAudience() {
        assertThat(strings(claims(keycloak.bearer(Audiences.AGENT, "bob")).path("aud")))
                .containsExactly(Audiences.AGENT);
        assertThat(strings(claims(keycloak.bearer(Audiences.EXECUTOR, "bob")).path("aud")))
                .containsExactly(Audiences.EXECUTOR);
    }

    @Test
    void carolIsInTenantGlobex() {
        JsonNode claims = claims(keycloak.passwordGrant("carol", LocalKeycloak.password("carol")));

        assertThat(claims.path("sub").asText()).isEqualTo("carol");
        assertThat(claims.path("tenant").asText()).isEqualTo("globex");
    }

    @Test
    void daveIsAPlainUserWithoutTheApproverOrAdminGroup() {
        JsonNode claims = claims(keycloak.passwordGrant("dave", LocalKeycloak.password("dave")));

        assertThat(claims.path("tenant").asText()).isEqualTo("acme");
        assertThat(strings(claims.path("groups"))).containsExactly(Groups.USER);
    }

    @Test
    void aWrongPasswordIsRefused() {
        assertThatThrownBy(() -> keycloak.passwordGrant("alice", "not-her-password"))
                .hasMessageContaining("HTTP 401").hasMessageContaining("invalid_grant");
    }

    @Test
    void theWebClientsRefuseThePasswordGrant() throws Exception {
        for (String client : List.of(LocalKeycloak.DECISION_PAGE_CLIENT, LocalKeycloak.CHAT_CLIENT)) {
            HttpResponse<String> response = post(HttpClient.newHttpClient(), tokenEndpoint(), Map.of(
                    "grant_type", "password", "client_id", client, "client_secret", keycloak.clientSecret(client),
                    "username", "alice", "password", LocalKeycloak.password("alice")));

            assertThat(response.statusCode()).as(client).isIn(400, 401);
            assertThat(response.body()).as(client).contains("unauthorized_client");
        }
    }

    @Test
    void anExchangedMcpTokenNamesThePersonAndTheClientTheySignedInThrough() throws Exception {
        String mcpToken = keycloak.bearer(Audiences.MCP, "alice");
        assertThat(claims(mcpToken).has("act")).as("an ordinary token names no actor").isFalse();

        HttpResponse<String> response = exchange(mcpToken);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode evidence = claims(Json.mapper().readTree(response.body()).path("access_token").asText());
        assertThat(evidence.path("sub").asText()).isEqualTo("alice");
        assertThat(evidence.path("tenant").asText()).isEqualTo("acme");
        assertThat(strings(evidence.path("aud"))).containsExactly(Audiences.MCP_EVIDENCE);
        // Standard token exchange impersonates: azp is the exchanging client. The provider
        // (deploy/keycloak-extension) names the client the person's token was issued to.
        assertThat(evidence.path("azp").asText()).isEqualTo(LocalKeycloak.MCP_SERVER_CLIENT);
        assertThat(evidence.path("act").path("client_id").asText()).isEqualTo(LocalKeycloak.TEST_MCP_CLIENT);

        // The evidence exchanged again (Keycloak lets a client exchange a token issued to itself, with a fresh iat): no
        // actor is named, so the executor refuses it as MCP evidence; the mapper never names the exchanging client.
        HttpResponse<String> again = exchange(Json.mapper().readTree(response.body()).path("access_token").asText());
        assertThat(again.statusCode()).as("Keycloak 26.5 lets it: %s", again.body()).isEqualTo(200);
        assertThat(claims(Json.mapper().readTree(again.body()).path("access_token").asText()).has("act")).isFalse();
        // The exchange client has no other grant (so its mapper sees token exchanges only).
        HttpResponse<String> password = post(HttpClient.newHttpClient(), tokenEndpoint(), Map.of(
                "grant_type", "password", "client_id", LocalKeycloak.MCP_SERVER_CLIENT,
                "client_secret", keycloak.clientSecret(LocalKeycloak.MCP_SERVER_CLIENT),
                "username", "alice", "password", LocalKeycloak.password("alice")));
        assertThat(password.statusCode()).as(password.body()).isIn(400, 401);
    }

    /**
     * The exchange client gets evidence only: asked for a service's audience (which would make it a bearer token
     * there), Keycloak refuses.
     */
    @Test
    void theExchangeClientCannotAskForAServicesAudience() throws Exception {
        String mcpToken = keycloak.bearer(Audiences.MCP, "alice");

        for (String audience : List.of(Audiences.EXECUTOR, Audiences.AGENT, Audiences.MCP, Audiences.INTEGRATION)) {
            HttpResponse<String> refused = exchange(mcpToken, audience);
            assertThat(refused.statusCode()).as("%s: %s", audience, refused.body()).isEqualTo(400);
            // Not "audience not found": each is a client of the realm, held for its name.
            assertThat(refused.body()).contains("Requested audience not available").doesNotContain("access_token");
        }
    }

    private static HttpResponse<String> exchange(String subjectToken) throws Exception {
        return exchange(subjectToken, Audiences.MCP_EVIDENCE);
    }

    private static HttpResponse<String> exchange(String subjectToken, String audience) throws Exception {
        return post(HttpClient.newHttpClient(), tokenEndpoint(), Map.of(
                "grant_type", "urn:ietf:params:oauth:grant-type:token-exchange",
                "client_id", LocalKeycloak.MCP_SERVER_CLIENT,
                "client_secret", keycloak.clientSecret(LocalKeycloak.MCP_SERVER_CLIENT),
                "subject_token", subjectToken,
                "subject_token_type", "urn:ietf:params:oauth:token-type:access_token",
                "audience", audience));
    }

    /**
     * Dynamic client registration as an MCP client does it (RFC 7591, anonymous, from this machine, asking for the
     * {@value LocalKeycloak#MCP_SCOPE} scope the MCP server's metadata names): the registered client signs a person in
     * with PKCE after the person agreed on a consent screen, its tokens carry the MCP server's audiences, the tenant
     * and the groups, and the exchange names it. The set-up is run a second time first: it leaves the realm as the
     * first run did.
     */
    @Test
    void anMcpClientRegistersItselfFromThisMachineAndTheExchangeNamesIt() throws Exception {
        keycloak.openMcpRegistration();
        String callback = "http://127.0.0.1:" + CALLBACK_PORTS.incrementAndGet() + "/callback";
        HttpResponse<String> registered = register(callback, LocalKeycloak.MCP_SCOPE);
        assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
        String clientId = Json.mapper().readTree(registered.body()).path("client_id").asText();
        assertThat(clientId).isNotBlank().isNotEqualTo(LocalKeycloak.MCP_CLIENT);

        String verifier = verifier();
        SignIn signIn = signInConsenting(authorizationUri(clientId, callback, challenge(verifier),
                "openid " + LocalKeycloak.MCP_SCOPE), "alice");
        assertThat(signIn.consentAsked()).as("the person is asked before a registered client gets a token")
                .isTrue();
        HttpResponse<String> tokens = post(HttpClient.newHttpClient(), tokenEndpoint(), Map.of("grant_type",
                "authorization_code", "code", signIn.code(), "redirect_uri", callback, "code_verifier", verifier,
                "client_id", clientId));
        assertThat(tokens.statusCode()).as(tokens.body()).isEqualTo(200);
        String access = Json.mapper().readTree(tokens.body()).path("access_token").asText();
        JsonNode claims = claims(access);
        assertThat(strings(claims.path("aud"))).containsExactlyInAnyOrder(Audiences.MCP,
                LocalKeycloak.MCP_SERVER_CLIENT);
        assertThat(claims.path("azp").asText()).isEqualTo(clientId);
        assertThat(claims.path("sub").asText()).isEqualTo("alice");
        assertThat(claims.path("tenant").asText()).isEqualTo("acme");
        assertThat(strings(claims.path("groups"))).contains(Groups.USER);
        assertThat(strings(claims(Json.mapper().readTree(tokens.body()).path("id_token").asText()).path("aud")))
                .containsExactly(clientId);
        HttpResponse<String> exchanged = exchange(access);
        assertThat(exchanged.statusCode()).as(exchanged.body()).isEqualTo(200);
        assertThat(claims(Json.mapper().readTree(exchanged.body()).path("access_token").asText()).path("act")
                .path("client_id").asText()).isEqualTo(clientId);

        // The client Keycloak made requires PKCE S256: a sign-in without a challenge is sent back with an error.
        HttpResponse<String> withoutPkce = browser().send(HttpRequest.newBuilder(authorizationUri(clientId, callback,
                null, "openid " + LocalKeycloak.MCP_SCOPE)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(withoutPkce.headers().firstValue("Location").orElse(""))
                .contains("error=invalid_request").doesNotContain("code=");
    }

    /**
     * What an anonymous registrant may not have: a redirect URI on another host, offline tokens, the password grant, or
     * a client id of its choosing (an API's audience, whose ID tokens would pass there as bearer tokens); and what it
     * may ask for but gets nothing in a person's name with: a pairwise subject, a service account.
     */
    @Test
    void anAnonymousRegistrationGetsNothingInAPersonsNameBeyondTheMcpScope() throws Exception {
        String callback = "http://127.0.0.1:" + CALLBACK_PORTS.incrementAndGet() + "/callback";

        HttpResponse<String> elsewhere = register("https://mcp.example.com/callback", LocalKeycloak.MCP_SCOPE);
        assertThat(elsewhere.statusCode()).as(elsewhere.body()).isEqualTo(403);
        HttpResponse<String> offline = register(callback, LocalKeycloak.MCP_SCOPE + " offline_access");
        assertThat(offline.statusCode()).as(offline.body()).isEqualTo(403);
        // A pairwise subject: Keycloak adds its mapper after the registration policies ran, so "Allowed Protocol Mapper
        // Types" does not stop it, and the client's tokens name another subject. The exchange names the person, so the
        // executor refuses what such a client asks in the person's name (the evidence names another person).
        HttpResponse<String> pairwise = register(callback, LocalKeycloak.MCP_SCOPE, Map.of("subject_type",
                "pairwise"));
        assertThat(pairwise.statusCode()).as(pairwise.body()).isEqualTo(201);
        String pairwiseClient = Json.mapper().readTree(pairwise.body()).path("client_id").asText();
        String verifier = verifier();
        SignIn signIn = signInConsenting(authorizationUri(pairwiseClient, callback, challenge(verifier),
                "openid " + LocalKeycloak.MCP_SCOPE), "alice");
        HttpResponse<String> tokens = post(HttpClient.newHttpClient(), tokenEndpoint(), Map.of("grant_type",
                "authorization_code", "code", signIn.code(), "redirect_uri", callback, "code_verifier", verifier,
                "client_id", pairwiseClient));
        assertThat(tokens.statusCode()).as(tokens.body()).isEqualTo(200);
        String access = Json.mapper().readTree(tokens.body()).path("access_token").asText();
        assertThat(claims(access).path("sub").asText()).isNotEqualTo("alice");
        HttpResponse<String> exchanged = exchange(access);
        assertThat(exchanged.statusCode()).as(exchanged.body()).isEqualTo(200);
        assertThat(claims(Json.mapper().readTree(exchanged.body()).path("access_token").asText()).path("sub")
                .asText()).isEqualTo("alice");

        HttpResponse<String> password = register(callback, LocalKeycloak.MCP_SCOPE, Map.of("grant_types",
                List.of("authorization_code", "password")));
        // Registered, without the grant: the client policy stamps it off.
        assertThat(password.statusCode()).as(password.body()).isEqualTo(201);
        HttpResponse<String> grant = post(HttpClient.newHttpClient(), tokenEndpoint(), Map.of("grant_type",
                "password", "client_id", Json.mapper().readTree(password.body()).path("client_id").asText(),
                "username", "alice", "password", LocalKeycloak.password("alice"), "scope", LocalKeycloak.MCP_SCOPE));
        assertThat(grant.statusCode()).as("the password grant (%s)", grant.body().contains("access_token")
                ? "a token was issued"
                : grant.body()).isEqualTo(400);
        assertThat(grant.body()).contains("unauthorized_client").doesNotContain("access_token");

        for (String endpoint : List.of("default", "saml2-entity-descriptor")) {
            HttpResponse<String> other = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    keycloak.issuer() + "/clients-registrations/" + endpoint)).header("Content-Type",
                            "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(Json.write(Map.of("clientId", Audiences.EXECUTOR,
                            "publicClient", true, "redirectUris", List.of(callback)))))
                    .build(), HttpResponse.BodyHandlers.ofString());
            // A confidential client with a service account: it gets tokens with no person and no consent, but they name no
            // tenant, which every service refuses (CurrentUser).
            HttpResponse<String> service = register(callback, LocalKeycloak.MCP_SCOPE, Map.of("grant_types",
                    List.of("client_credentials"), "token_endpoint_auth_method", "client_secret_basic"));
            assertThat(service.statusCode()).as(service.body()).isEqualTo(201);
            JsonNode serviceClient = Json.mapper().readTree(service.body());
            HttpResponse<String> serviceToken = post(HttpClient.newHttpClient(), tokenEndpoint(), Map.of("grant_type",
                    "client_credentials", "client_id", serviceClient.path("client_id").asText(), "client_secret",
                    serviceClient.path("client_secret").asText(), "scope", LocalKeycloak.MCP_SCOPE));
            assertThat(serviceToken.statusCode()).isEqualTo(200);
            JsonNode serviceClaims = claims(Json.mapper().readTree(serviceToken.body()).path("access_token").asText());
            assertThat(serviceClaims.has("tenant")).isFalse();
            assertThat(serviceClaims.path("sub").asText()).isNotIn("alice", "bob", "carol", "dave");

            // Off in the build (KeycloakCache.BUILD_OPTIONS).
            assertThat(other.statusCode()).as("%s: %s", endpoint, other.body()).isEqualTo(404);
        }
    }

    /**
     * The registrant's own update (with the registration access token Keycloak answered the registration with) goes
     * through the same policies: it cannot turn on the password grant or the implicit flow, move its redirect URI to
     * another host or add offline tokens.
     */
    @Test
    void aRegisteredClientsOwnUpdateGetsNothingMore() throws Exception {
        String callback = "http://127.0.0.1:" + CALLBACK_PORTS.incrementAndGet() + "/callback";
        HttpResponse<String> registered = register(callback, LocalKeycloak.MCP_SCOPE);
        assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
        JsonNode client = Json.mapper().readTree(registered.body());
        String clientId = client.path("client_id").asText();

        HttpResponse<String> updated = update(client, Map.of("grant_types", List.of("authorization_code", "password",
                "implicit"), "response_types", List.of("code", "token", "id_token token")));
        assertThat(updated.statusCode()).as(updated.body()).isEqualTo(200);
        HttpResponse<String> grant = post(HttpClient.newHttpClient(), tokenEndpoint(), Map.of("grant_type",
                "password", "client_id", clientId, "username", "alice", "password", LocalKeycloak.password("alice")));
        assertThat(grant.statusCode()).as("the password grant (%s)", grant.body().contains("access_token")
                ? "a token was issued"
                : grant.body()).isEqualTo(400);
        HttpResponse<String> implicit = browser().send(HttpRequest.newBuilder(URI.create(keycloak.issuer()
                + "/protocol/openid-connect/auth?" + formBody(Map.of("response_type", "token", "client_id", clientId,
                        "redirect_uri", callback, "scope", "openid", "state", "s", "nonce", "n"))))
                .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(implicit.headers().firstValue("Location").orElse(implicit.body())).doesNotContain("access_token=");

        client = Json.mapper().readTree(updated.body());
        assertThat(update(client, Map.of("redirect_uris", List.of("https://mcp.example.com/callback"))).statusCode())
                .isEqualTo(403);
        assertThat(update(client, Map.of("scope", LocalKeycloak.MCP_SCOPE + " offline_access")).statusCode())
                .isEqualTo(403);
    }

    /** The client's registration as Keycloak answered it, changed by {@code changes}, sent back as its update. */
    private static HttpResponse<String> update(JsonNode registration, Map<String, Object> changes) throws Exception {
        com.fasterxml.jackson.databind.node.ObjectNode body = registration.deepCopy();
        for (String generated : List.of("registration_access_token", "registration_client_uri", "client_id_issued_at",
                "client_secret_expires_at")) {
            body.remove(generated);
        }
        changes.forEach((name, value) -> body.set(name, Json.mapper().valueToTree(value)));
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(registration
                .path("registration_client_uri").asText()))
                .header("Authorization", "Bearer " + registration.path("registration_access_token").asText())
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(Json.write(body)))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> register(String redirectUri, String scope) throws Exception {
        return register(redirectUri, scope, Map.of());
    }

    /**
     * An anonymous registration at Keycloak's OpenID Connect endpoint, as an MCP client sends it, plus {@code more}.
     */
    private static HttpResponse<String> register(String redirectUri, String scope, Map<String, Object> more)
            throws Exception {
        Map<String, Object> metadata = new HashMap<>(Map.of("client_name", "an MCP client", "redirect_uris",
                List.of(redirectUri), "grant_types", List.of("authorization_code", "refresh_token"), "response_types",
                List.of("code"), "token_endpoint_auth_method", "none", "scope", scope));
        metadata.putAll(more);
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(keycloak.issuer()
                + "/clients-registrations/openid-connect")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(metadata))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anAuthorizationRequestWithoutAPkceChallengeIsRefused() throws Exception {
        String callback = allowedCallback();

        HttpResponse<String> response = browser().send(HttpRequest.newBuilder(authorizationUri(
                LocalKeycloak.DECISION_PAGE_CLIENT, callback, null)).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(302);
        String location = response.headers().firstValue("Location").orElseThrow();
        assertThat(location).startsWith(callback).contains("error=invalid_request").contains("code_challenge")
                .doesNotContain("code=");
    }

    @Test
    void aRedirectUriIsRefusedUntilItIsAllowedAfterStart() throws Exception {
        int port = CALLBACK_PORTS.incrementAndGet();
        String callback = "http://localhost:" + port + "/ui/callback";
        URI authorization = authorizationUri(LocalKeycloak.CHAT_CLIENT, callback, challenge(verifier()));

        HttpResponse<String> refused = browser().send(HttpRequest.newBuilder(authorization).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("Invalid parameter: redirect_uri");

        keycloak.allowRedirectUri(LocalKeycloak.CHAT_CLIENT, callback);

        HttpResponse<String> accepted = browser().send(HttpRequest.newBuilder(authorization).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(accepted.statusCode()).isEqualTo(200);
        assertThat(accepted.body()).containsPattern(LOGIN_FORM);
        // Exact URIs only: another port on the same host stays refused.
        String otherPort = "http://localhost:" + (port + 500) + "/ui/callback";
        assertThat(browser().send(HttpRequest.newBuilder(authorizationUri(LocalKeycloak.CHAT_CLIENT, otherPort,
                challenge(verifier()))).build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(400);
    }

    @Test
    void theCodeFlowWithPkceGivesTheExecutorATokenForItsAudienceWithTheTenant() throws Exception {
        String callback = allowedCallback();
        String verifier = verifier();

        String code = signIn(authorizationUri(LocalKeycloak.DECISION_PAGE_CLIENT, callback, challenge(verifier)),
                "bob");

        HttpResponse<String> tokens = post(HttpClient.newHttpClient(), tokenEndpoint(), Map.of(
                "grant_type", "authorization_code", "code", code, "redirect_uri", callback, "code_verifier", verifier,
                "client_id", LocalKeycloak.DECISION_PAGE_CLIENT, "client_secret",
                LocalKeycloak.DECISION_PAGE_CLIENT_SECRET));

        assertThat(tokens.statusCode()).as(tokens.body()).isEqualTo(200);
        JsonNode body = Json.mapper().readTree(tokens.body());
        JsonNode access = claims(body.path("access_token").asText());
        assertThat(strings(access.path("aud"))).containsExactly(Audiences.EXECUTOR);
        assertThat(access.path("azp").asText()).isEqualTo(LocalKeycloak.DECISION_PAGE_CLIENT);
        assertThat(access.path("sub").asText()).isEqualTo("bob");
        assertThat(access.path("tenant").asText()).isEqualTo("acme");
        assertThat(access.path("iss").asText()).isEqualTo(keycloak.issuer());
        JsonNode id = claims(body.path("id_token").asText());
        // The ID token is for the client, never for an API: its audience is no service's, so neither service takes it
        // as a bearer token (quarkus-oidc checks the audience) nor the executor as evidence (EvidenceVerifier).
        assertThat(strings(id.path("aud"))).containsExactly(LocalKeycloak.DECISION_PAGE_CLIENT)
                .doesNotContain(Audiences.EXECUTOR, Audiences.AGENT);
        assertThat(id.path("tenant").asText()).isEqualTo("acme");
        assertThat(strings(id.path("groups"))).contains(Groups.APPROVER);
        assertThat(body.path("refresh_token").asText()).isNotBlank();
    }

    /**
     * Opens {@code authorization} and fills Keycloak's login form as {@code user}: answers the code of the redirect.
     */
    private static String signIn(URI authorization, String user) throws Exception {
        SignIn signIn = signInConsenting(authorization, user);
        assertThat(signIn.consentAsked()).as("a consent screen for a client of the realm file").isFalse();
        return signIn.code();
    }

    private record SignIn(String code, boolean consentAsked) {
    }

    /**
     * {@link #signIn}, agreeing on Keycloak's consent screen if it shows one (a required action it redirects to after
     * the login form).
     */
    private static SignIn signInConsenting(URI authorization, String user) throws Exception {
        HttpClient browser = browser();
        // java.net.CookieManager drops cookies for an IP-address host: kept here by name.
        Map<String, String> cookies = new java.util.LinkedHashMap<>();
        HttpResponse<String> page = visit(browser, HttpRequest.newBuilder(authorization), cookies);
        Matcher form = LOGIN_FORM.matcher(page.body());
        assertThat(form.find()).as("login form in %s", page.body()).isTrue();
        page = visit(browser, HttpRequest.newBuilder(URI.create(form.group(1).replace("&amp;", "&")))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(formBody(Map.of("username", user, "password",
                        LocalKeycloak.password(user), "credentialId", "")))),
                cookies);
        boolean consentAsked = false;
        for (int step = 0; step < 4; step++) {
            if (page.statusCode() == 302) {
                URI next = page.request().uri().resolve(page.headers().firstValue("Location").orElseThrow());
                if (!next.toString().startsWith(keycloak.issuer())) {
                    String code = query(next.toString()).get("code");
                    assertThat(code).as(next.toString()).isNotBlank();
                    return new SignIn(code, consentAsked);
                }
                page = visit(browser, HttpRequest.newBuilder(next), cookies);
            } else {
                Matcher consent = CONSENT_FORM.matcher(page.body());
                assertThat(consent.find()).as("a redirect or a consent screen: HTTP %d %s", page.statusCode(),
                        page.body()).isTrue();
                consentAsked = true;
                page = visit(browser, HttpRequest.newBuilder(page.request().uri().resolve(consent.group(1)
                        .replace("&amp;", "&")))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString(formBody(Map.of("code", consent.group(2), "accept",
                                "Yes")))),
                        cookies);
            }
        }
        throw new AssertionError("no code after four steps; last: HTTP " + page.statusCode() + " " + page.body());
    }

    /** Sends {@code request} with the cookies of {@code jar} and keeps those it sets. */
    private static HttpResponse<String> visit(HttpClient browser, HttpRequest.Builder request, Map<String, String> jar)
            throws Exception {
        if (!jar.isEmpty()) {
            request.header("Cookie", String.join("; ", jar.values()));
        }
        HttpResponse<String> response = browser.send(request.build(), HttpResponse.BodyHandlers.ofString());
        response.headers().allValues("Set-Cookie").forEach(cookie -> {
            String pair = cookie.split(";", 2)[0];
            jar.put(pair.substring(0, pair.indexOf('=')), pair);
        });
        return response;
    }

    private static String allowedCallback() {
        String callback = "http://localhost:" + CALLBACK_PORTS.incrementAndGet() + "/ui/callback";
        keycloak.allowRedirectUri(LocalKeycloak.DECISION_PAGE_CLIENT, callback);
        return callback;
    }

    private static HttpClient browser() {
        return HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    }

    private static URI tokenEndpoint() {
        return URI.create(keycloak.issuer() + "/protocol/openid-connect/token");
    }

    private static URI authorizationUri(String client, String redirectUri, String challenge) {
        return authorizationUri(client, redirectUri, challenge, "openid");
    }

    private static URI authorizationUri(String client, String redirectUri, String challenge, String scope) {
        Map<String, String> query = new HashMap<>(Map.of("response_type", "code", "client_id", client,
                "redirect_uri", redirectUri, "scope", scope, "state", UUID.randomUUID().toString(), "nonce",
                UUID.randomUUID().toString()));
        if (challenge != null) {
            query.put("code_challenge", challenge);
            query.put("code_challenge_method", "S256");
        }
        return URI.create(keycloak.issuer() + "/protocol/openid-connect/auth?" + formBody(query));
    }

    private static HttpResponse<String> post(HttpClient client, URI uri, Map<String, String> fields)
            throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(formBody(fields))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String formBody(Map<String, String> fields) {
        List<String> pairs = new ArrayList<>();
        fields.forEach((name, value) -> pairs.add(encode(name) + "=" + encode(value)));
        return String.join("&", pairs);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static Map<String, String> query(String uri) {
        Map<String, String> parameters = new HashMap<>();
        for (String pair : URI.create(uri).getRawQuery().split("&")) {
            String[] parts = pair.split("=", 2);
            parameters.put(parts[0], URLDecoder.decode(parts.length > 1 ? parts[1] : "",
                    StandardCharsets.UTF_8));
        }
        return parameters;
    }

    private static String verifier() {
        byte[] random = new byte[48];
        new SecureRandom().nextBytes(random);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    private static String challenge(String verifier) throws Exception {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    }

    private static JsonNode claims(String jwt) {
        try {
            return Json.mapper().readTree(Base64.getUrlDecoder().decode(jwt.split("\\.")[1]));
        } catch (IOException e) {
            throw new IllegalArgumentException("Not a JWT: " + jwt, e);
        }
    }

    /** {@code aud} is a string for one audience and an array for several. */
    private static List<String> strings(JsonNode node) {
        List<String> values = new ArrayList<>();
        if (node.isArray()) {
            node.forEach(value -> values.add(value.asText()));
        } else if (!node.isMissingNode()) {
            values.add(node.asText());
        }
        return values;
    }
}
