package dev.countersign.devsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Groups;
import dev.countersign.contracts.json.Json;

/**
 * The tokens DevTokens signs, read back with the JDK alone (no JWT library): the header, exactly the claims asked for,
 * and an RS256 signature the public key verifies.
 */
class DevTokensTest {

    private final DevTokens tokens = DevTokens.generate();

    @Test
    void headerIsRs256JwtWithoutKeyId() {
        JsonNode header = part(tokens.mint("t-1", "alice", "executor", Duration.ofMinutes(5)), 0);
        assertThat(header.properties()).extracting(Map.Entry::getKey).containsExactlyInAnyOrder("alg", "typ");
        assertThat(header.get("alg").asText()).isEqualTo("RS256");
        assertThat(header.get("typ").asText()).isEqualTo("JWT");
    }

    @Test
    void mintedTokenCarriesIssuerAudiencesGroupsAndTenant() {
        String token = tokens.mint("t-1", "alice", List.of("executor", "agent"), List.of(Groups.USER),
                Duration.ofMinutes(5));
        JsonNode claims = part(token, 1);
        assertThat(claims.properties()).extracting(Map.Entry::getKey).containsExactlyInAnyOrder("iss", "sub", "upn",
                "tenant", "aud", "groups", "iat", "exp", "jti");
        assertThat(claims.get("iss").asText()).isEqualTo(DevTokens.ISSUER);
        assertThat(claims.get("sub").asText()).isEqualTo("alice");
        assertThat(claims.get("tenant").asText()).isEqualTo("t-1");
        assertThat(claims.get("aud").isArray()).isTrue();
        assertThat(claims.get("aud")).extracting(JsonNode::asText).containsExactly("executor", "agent");
        assertThat(claims.get("groups")).extracting(JsonNode::asText).containsExactly(Groups.USER);
        assertThat(claims.get("exp").asLong() - claims.get("iat").asLong()).isEqualTo(300);
        assertThat(verifies(token)).isTrue();
    }

    @Test
    void signsExactlyTheClaimsGivenAddingNoIssuedAtExpiryOrId() {
        String token = tokens.sign(Map.of("iss", DevTokens.ISSUER, "sub", "alice", "aud", List.of("executor")));
        JsonNode claims = part(token, 1);
        assertThat(claims.properties()).extracting(Map.Entry::getKey).containsExactlyInAnyOrder("iss", "sub", "aud");
        assertThat(claims.get("aud").isArray()).isTrue();
        assertThat(verifies(token)).isTrue();
    }

    @Test
    void anotherKeysSignatureDoesNotVerify() {
        String foreign = DevTokens.generate().mint("t-1", "alice", "executor", Duration.ofMinutes(5));
        assertThat(verifies(foreign)).isFalse();
    }

    private static JsonNode part(String token, int index) {
        return Json.read(new String(Base64.getUrlDecoder().decode(token.split("\\.")[index]), StandardCharsets.UTF_8),
                JsonNode.class);
    }

    private boolean verifies(String token) {
        String[] parts = token.split("\\.");
        try {
            PublicKey key = KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(
                    Base64.getMimeDecoder().decode(tokens.publicKeyPem().replaceAll("-----[A-Z ]+-----", ""))));
            Signature rs256 = Signature.getInstance("SHA256withRSA");
            rs256.initVerify(key);
            rs256.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
            return rs256.verify(Base64.getUrlDecoder().decode(parts[2]));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
