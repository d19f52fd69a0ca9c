package dev.countersign.devsupport;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.countersign.contracts.Groups;
import io.smallrye.jwt.algorithm.SignatureAlgorithm;
import io.smallrye.jwt.build.Jwt;

/**
 * Mints RS256 bearer tokens for demo users. Lives here, in a module no service depends on at run time, so a production
 * build of a service has no way to mint a token: it only verifies them against its configured key.
 */
public final class DevTokens {

    public static final String ISSUER = "https://countersign.local/dev";

    private final KeyPair keys;

    public DevTokens(KeyPair keys) {
        this.keys = keys;
    }

    public static DevTokens generate() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return new DevTokens(generator.generateKeyPair());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Restores a key pair written by {@link #privateKeyPem()} and {@link #publicKeyPem()}. */
    public static DevTokens fromPem(String privatePem, String publicPem) {
        try {
            KeyFactory factory = KeyFactory.getInstance("RSA");
            PrivateKey privateKey = factory.generatePrivate(new PKCS8EncodedKeySpec(der(privatePem)));
            PublicKey publicKey = factory.generatePublic(new X509EncodedKeySpec(der(publicPem)));
            return new DevTokens(new KeyPair(publicKey, privateKey));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Unreadable dev key pair", e);
        }
    }

    public PublicKey publicKey() {
        return keys.getPublic();
    }

    public String publicKeyPem() {
        return pem("PUBLIC KEY", keys.getPublic().getEncoded());
    }

    /** The public key as the services' {@code OIDC_PUBLIC_KEY} takes it: base64 of its DER encoding, one line. */
    public String publicKeyBase64() {
        return java.util.Base64.getEncoder().encodeToString(keys.getPublic().getEncoded());
    }

    public String privateKeyPem() {
        return pem("PRIVATE KEY", keys.getPrivate().getEncoded());
    }

    /** A token for one audience (see {@link dev.countersign.contracts.Audiences}). */
    public String mint(String tenantId, String userId, String audience, Duration lifetime) {
        return mint(tenantId, userId, List.of(audience), lifetime);
    }

    /** A token for several audiences, as some identity providers issue them; demo users are approvers and admins. */
    public String mint(String tenantId, String userId, List<String> audiences, Duration lifetime) {
        return mint(tenantId, userId, audiences, List.of(Groups.USER, Groups.APPROVER, Groups.ADMIN), lifetime);
    }

    public String mint(String tenantId, String userId, List<String> audiences, List<String> groups,
            Duration lifetime) {
        Instant now = Instant.now();
        return mint(tenantId, userId, audiences, groups, now, now.plus(lifetime));
    }

    /**
     * A token issued at {@code issuedAt} (its {@code iat}), valid for {@code lifetime} from then: tests of the
     * services' maximum token age mint one issued long ago that has not expired yet.
     */
    public String mintIssuedAt(String tenantId, String userId, List<String> audiences, List<String> groups,
            Instant issuedAt, Duration lifetime) {
        return mint(tenantId, userId, audiences, groups, issuedAt, issuedAt.plus(lifetime));
    }

    /** A token issued at {@code issuedAt} that expires at {@code expiresAt} (for old or expired tokens in tests). */
    public String mint(String tenantId, String userId, List<String> audiences, List<String> groups, Instant issuedAt,
            Instant expiresAt) {
        return sign(Map.of(
                "iss", ISSUER,
                "sub", userId,
                "upn", userId,
                "tenant", tenantId,
                "aud", audiences,
                "groups", groups,
                "iat", issuedAt.getEpochSecond(),
                "exp", expiresAt.getEpochSecond(),
                "jti", UUID.randomUUID().toString()));
    }

    /**
     * A token as the identity provider's token exchange issues it for agent-service's MCP server (docs/mcp.md): the
     * person's {@code sub}, {@code azp} the exchanging client, and the MCP client the person signed in through as
     * {@code act.client_id} (null: no {@code act} claim, as an identity provider without Countersign's mapper issues).
     */
    public String mintExchanged(String tenantId, String userId, String audience, String actingClient,
            Duration lifetime) {
        Instant now = Instant.now();
        Map<String, Object> claims = new HashMap<>(Map.of(
                "iss", ISSUER,
                "sub", userId,
                "tenant", tenantId,
                "azp", LocalKeycloak.MCP_SERVER_CLIENT,
                "aud", List.of(audience),
                "groups", List.of(Groups.USER),
                "iat", now.getEpochSecond(),
                "exp", now.plus(lifetime).getEpochSecond(),
                "jti", UUID.randomUUID().toString()));
        if (actingClient != null) {
            claims.put("act", Map.of("client_id", actingClient));
        }
        return sign(claims);
    }

    /**
     * A client-credentials token of an integration (a service principal, no person): {@code client_id} and {@code azp}
     * name the client, {@code sub} its service account.
     */
    public String mintService(String tenantId, String clientId, String audience, Duration lifetime) {
        Instant now = Instant.now();
        return sign(Map.of(
                "iss", ISSUER,
                "sub", "service-account-" + clientId,
                "client_id", clientId,
                "azp", clientId,
                "tenant", tenantId,
                "aud", List.of(audience),
                "iat", now.getEpochSecond(),
                "exp", now.plus(lifetime).getEpochSecond(),
                "jti", UUID.randomUUID().toString()));
    }

    /**
     * Exactly these claims, signed with this key by smallrye-jwt-build (header {@code alg} RS256, {@code typ} JWT, no
     * {@code kid}): for tests of tokens a service must refuse (no iat, another issuer) as well as for good ones.
     * <p>
     * smallrye-jwt-build would add {@code iat}, {@code exp} and {@code jti} to a token lacking them; dev-support's
     * {@code META-INF/microprofile-config.properties} turns that off
     * ({@code smallrye.jwt.new-token.add-default-claims}), so a token without {@code iat} stays without one. That
     * setting is MicroProfile Config: a test or process that sets it back to true, or sets
     * {@code smallrye.jwt.new-token.issuer}/{@code audience} with {@code override-matching-claims}, changes these
     * tokens.
     */
    public String sign(Map<String, Object> claims) {
        return Jwt.claims(claims).jws().algorithm(SignatureAlgorithm.RS256).sign(keys.getPrivate());
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private static byte[] der(String pem) {
        return Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
    }
}
