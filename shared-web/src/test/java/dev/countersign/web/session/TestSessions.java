package dev.countersign.web.session;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.eclipse.microprofile.jwt.JsonWebToken;

/** Session settings and ID tokens for the session rules' unit tests. */
final class TestSessions {

    static final String SECRET = "a-test-only-csrf-secret-0123456789abcdef";

    private TestSessions() {
    }

    static SessionConfig config(String cookieSuffix, String secret, List<String> pages) {
        return new SessionConfig() {

            @Override
            public String csrfSecret() {
                return secret;
            }

            @Override
            public List<String> pages() {
                return pages;
            }

            @Override
            public String cookieSuffix() {
                return cookieSuffix;
            }

            @Override
            public java.util.Optional<List<String>> bearerOnlyPaths() {
                return java.util.Optional.of(List.of("/mcp", "/mcp/*"));
            }
        };
    }

    /** An ID token with these claims (only what the rules read). */
    static JsonWebToken idToken(Map<String, Object> claims) {
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
            public <T> T getClaim(String claimName) {
                return (T) claims.get(claimName);
            }
        };
    }
}
