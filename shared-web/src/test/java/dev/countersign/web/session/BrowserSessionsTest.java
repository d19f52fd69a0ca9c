package dev.countersign.web.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Which requests sign in by the page's session (and so pass the CSRF filter), on the chat's settings: the rule the
 * tenant resolver and the CSRF filter share.
 */
class BrowserSessionsTest {

    private final BrowserSessions chat = new BrowserSessions(
            TestSessions.config("chat", TestSessions.SECRET, List.of("/", "/index.html", "/callback", "/logout")));
    private final BrowserSessions decisionPage = new BrowserSessions(
            TestSessions.config("decide", TestSessions.SECRET, List.of("/decide", "/decide/*")));

    private static Stream<String> cookies(String... names) {
        return Stream.of(names);
    }

    @Test
    void aBearerRequestIsNeverASessionRequestWhateverCookiesAndPathItHas() {
        assertThat(chat.isSession("Bearer x", "/", cookies("q_session_web_chat"))).isFalse();
        assertThat(chat.isSession("Basic x", "/api/wallets", cookies("q_session_web_chat"))).isFalse();
        assertThat(decisionPage.isSession("Bearer x", "/decide/", cookies())).isFalse();
    }

    /** The MCP endpoint takes its own bearer tokens only: the chat's session cookie never signs a request in there. */
    @Test
    void aBearerOnlyPathIsNeverASessionRequestWhateverCookieComesAlong() {
        assertThat(chat.isSession(null, "/mcp", cookies("q_session_web_chat"))).isFalse();
        assertThat(chat.isSession(null, "/mcp/sse", cookies("q_session_web_chat"))).isFalse();
        assertThat(chat.isSession(null, "/mcp;x", cookies("q_session_web_chat"))).isFalse();
        assertThat(chat.isSession(null, "/mcp;x/sse", cookies("q_session_web_chat"))).isFalse();
        assertThat(chat.isSession(null, "/mcpx", cookies("q_session_web_chat"))).isTrue();
    }

    @Test
    void thePagesOwnPathsAreSessionRequestsExactlyOrByTheirPrefix() {
        assertThat(chat.isSession(null, "/", cookies())).isTrue();
        assertThat(chat.isSession(null, "/callback", cookies())).isTrue();
        assertThat(chat.isSession(null, "/ui/app.js", cookies())).isFalse();
        assertThat(chat.isSession(null, "/api/wallets", cookies())).isFalse();
        assertThat(decisionPage.isSession(null, "/decide", cookies())).isTrue();
        assertThat(decisionPage.isSession(null, "/decide/app.js", cookies())).isTrue();
        assertThat(decisionPage.isSession(null, "/decider", cookies())).isFalse();
    }

    @Test
    void onlyTheServicesOwnSessionCookieOrItsChunksMakeAnApiRequestASessionRequest() {
        assertThat(chat.isSession(null, "/api/wallets", cookies("q_session_web_chat"))).isTrue();
        assertThat(chat.isSession(null, "/api/wallets", cookies("other", "q_session_web_chat_chunk_1"))).isTrue();
        // The decision page's cookie reaches the chat's port on one host name (the local stack): not the chat's session.
        assertThat(chat.isSession(null, "/api/wallets", cookies("q_session_web_decide"))).isFalse();
        assertThat(chat.isSession(null, "/api/wallets", cookies("q_session_web_chatty", "q_session_web"))).isFalse();
        assertThat(decisionPage.isSession(null, "/api/actions", cookies("q_session_web_chat"))).isFalse();
        assertThat(decisionPage.isSession(null, "/api/actions", cookies("q_session_web_decide"))).isTrue();
    }
}
