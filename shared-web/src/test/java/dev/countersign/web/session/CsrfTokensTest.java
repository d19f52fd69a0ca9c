package dev.countersign.web.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.jwt.JsonWebToken;
import org.junit.jupiter.api.Test;

/** The session's CSRF token: bound to the page, the person and the identity provider's session, and nothing else. */
class CsrfTokensTest {

    private static CsrfTokens tokens(String page) {
        return new CsrfTokens(TestSessions.config(page, TestSessions.SECRET, List.of("/")));
    }

    private static JsonWebToken signIn(String user, String sid, long issuedAt) {
        return TestSessions.idToken(Map.of("sub", user, "tenant", "acme", "sid", sid, "iat", issuedAt));
    }

    @Test
    void theSessionsOwnTokenMatchesAndNothingElseDoes() {
        CsrfTokens decide = tokens("decide");
        JsonWebToken alice = signIn("alice", "s1", 100);

        assertThat(decide.matches(alice, decide.tokenFor(alice))).isTrue();
        assertThat(decide.matches(alice, decide.tokenFor(alice) + "x")).isFalse();
        assertThat(decide.matches(alice, "")).isFalse();
        assertThat(decide.matches(alice, null)).isFalse();
    }

    @Test
    void theTokenStaysAcrossARefreshOfTheSameSignInAndChangesWithTheNextSignInOrPerson() {
        CsrfTokens decide = tokens("decide");
        String token = decide.tokenFor(signIn("alice", "s1", 100));

        assertThat(decide.tokenFor(signIn("alice", "s1", 400))).isEqualTo(token);
        assertThat(decide.tokenFor(signIn("alice", "s2", 100))).isNotEqualTo(token);
        assertThat(decide.tokenFor(signIn("bob", "s1", 100))).isNotEqualTo(token);
    }

    @Test
    void theChatsTokenIsNeverTheDecisionPagesEvenUnderOneSecret() {
        JsonWebToken alice = signIn("alice", "s1", 100);

        assertThat(tokens("chat").tokenFor(alice)).isNotEqualTo(tokens("decide").tokenFor(alice));
        assertThat(tokens("decide").matches(alice, tokens("chat").tokenFor(alice))).isFalse();
    }
}
