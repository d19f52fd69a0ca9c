package dev.countersign.executor.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.eclipse.microprofile.jwt.JsonWebToken;
import org.junit.jupiter.api.Test;

import dev.countersign.web.CurrentUser;

/**
 * Which tokens are service principals (CurrentUser.isServiceToken), with the production default of no clients named.
 */
class ServiceTokensTest {

    private static JsonWebToken token(Map<String, Object> claims) {
        return new JsonWebToken() {

            @Override
            public String getName() {
                return (String) claims.get("sub");
            }

            @Override
            public Set<String> getClaimNames() {
                return claims.keySet();
            }

            @Override
            @SuppressWarnings("unchecked")
            public <T> T getClaim(String name) {
                return (T) claims.get(name);
            }

            @Override
            public String getSubject() {
                return (String) claims.get("sub");
            }
        };
    }

    private static Map<String, Object> claims(Object... pairs) {
        Map<String, Object> claims = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            claims.put((String) pairs[i], pairs[i + 1]);
        }
        return claims;
    }

    @Test
    void aPersonsTokenWithoutClientClaimsIsNoServiceWhenNoClientIsConfigured() {
        assertThat(CurrentUser.isServiceToken(token(claims("sub", "alice")), Set.of())).isFalse();
        assertThat(CurrentUser.isServiceToken(token(claims("sub", "alice", "azp", "countersign-chat")), Set.of()))
                .isFalse();
    }

    @Test
    void aServiceIsKnownByItsConfiguredClientOrItsShape() {
        assertThat(CurrentUser.isServiceToken(token(claims("sub", "u-1", "azp", "bridge")), Set.of("bridge")))
                .isTrue();
        assertThat(CurrentUser.isServiceToken(token(claims("sub", "bridge", "client_id", "bridge")), Set.of()))
                .isTrue();
        assertThat(CurrentUser.isServiceToken(
                token(claims("sub", "u-2", "preferred_username", "service-account-bridge")), Set.of())).isTrue();
        // Limit (documented): a UUID subject and no username, with no client configured, passes as a person.
        assertThat(CurrentUser.isServiceToken(token(claims("sub", "u-3", "azp", "bridge")), Set.of())).isFalse();
    }
}
