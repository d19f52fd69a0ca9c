package dev.countersign.devsupport.testing.fuzz;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

import dev.countersign.contracts.Groups;
import dev.countersign.devsupport.DevTokens;
import dev.countersign.devsupport.testing.TestProperties;

/**
 * An {@code Authorization} header a fuzz input carries.
 *
 * @param authorization
 *            the header value; null sends no header
 * @param signedIn
 *            true when the service should accept it (a valid token of the fuzz tenant's user)
 */
public record Credential(String label, String authorization, boolean signedIn) {

    private static final String OTHER_TENANT = "other-tenant";

    /**
     * The valid bearer of {@code userId} in {@code tenantId} for {@code audience}, and the ways to get it wrong: none,
     * expired, forged (signed with another key), wrong audience, another tenant, alg "none", not a JWT at all.
     */
    public static List<Credential> variants(String tenantId, String userId, String audience, String otherAudience) {
        DevTokens trusted = TestProperties.tokens();
        List<String> groups = List.of(Groups.USER, Groups.APPROVER, Groups.ADMIN);
        Instant now = Instant.now();
        List<Credential> variants = new ArrayList<>();
        variants.add(new Credential("valid", bearer(trusted.mint(tenantId, userId, List.of(audience), groups,
                Duration.ofHours(2))), true));
        variants.add(new Credential("none", null, false));
        variants.add(new Credential("expired", bearer(trusted.mint(tenantId, userId, List.of(audience), groups,
                now.minusSeconds(7200), now.minusSeconds(3600))), false));
        variants.add(new Credential("forged", bearer(DevTokens.generate().mint(tenantId, userId, List.of(audience),
                groups, Duration.ofHours(2))), false));
        variants.add(new Credential("wrong-audience", bearer(trusted.mint(tenantId, userId, List.of(otherAudience),
                groups, Duration.ofHours(2))), false));
        // Valid, but of a tenant that owns nothing the inputs name: it must see nothing and change nothing.
        variants.add(new Credential(OTHER_TENANT, bearer(trusted.mint("t-fuzz-other-" + UUID.randomUUID(), userId,
                List.of(audience), groups, Duration.ofHours(2))), false));
        variants.add(
                new Credential("alg-none", bearer(unsigned(trusted.mint(tenantId, userId, List.of(audience), groups,
                        Duration.ofHours(2)))), false));
        variants.add(new Credential("not-a-jwt", "Bearer '; DROP TABLE actions; --", false));
        variants.add(new Credential("basic", "Basic " + Base64.getEncoder()
                .encodeToString("alice:alice".getBytes(StandardCharsets.UTF_8)), false));
        variants.add(new Credential("empty-bearer", "Bearer ", false));
        return List.copyOf(variants);
    }

    /** A valid token of another tenant: it may read (and find nothing of the fuzz tenant's), never write. */
    public boolean isAnotherTenant() {
        return OTHER_TENANT.equals(label);
    }

    private static String bearer(String token) {
        return "Bearer " + token;
    }

    /** The trusted token with its header switched to {@code "alg":"none"} and no signature: never to be accepted. */
    private static String unsigned(String signed) {
        String header = Base64.getUrlEncoder().withoutPadding()
                .encodeToString("{\"alg\":\"none\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
        return header + "." + signed.split("\\.")[1] + ".";
    }
}
