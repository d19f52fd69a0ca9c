package dev.countersign.executor.session;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Groups;
import dev.countersign.contracts.api.DecisionSession;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import dev.countersign.web.session.BrowserSessions;
import dev.countersign.web.session.CsrfTokens;
import io.quarkus.security.Authenticated;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /api/session}: who is signed in on the decision page, and the CSRF token its changes must carry. Only for
 * the page's browser session; a bearer client has no session and no use for the token.
 */
@Path("/api/session")
@Authenticated
public class SessionResource {

    private final CurrentUser user;
    private final JsonWebToken idToken;
    private final CsrfTokens csrf;
    private final BrowserSessions sessions;
    private final RoutingContext routing;
    private final String logoutPath;
    private final Optional<String> chatUrl;

    public SessionResource(CurrentUser user, JsonWebToken idToken, CsrfTokens csrf, BrowserSessions sessions,
            RoutingContext routing, @ConfigProperty(name = "quarkus.oidc.web.logout.path") String logoutPath,
            @ConfigProperty(name = "countersign.decision-page.chat-url") Optional<String> chatUrl) {
        this.user = user;
        this.idToken = idToken;
        this.csrf = csrf;
        this.sessions = sessions;
        this.routing = routing;
        this.logoutPath = logoutPath;
        this.chatUrl = chatUrl;
    }

    @GET
    public DecisionSession session() {
        if (!sessions.isSession(routing)) {
            throw new ProblemException(ErrorCode.NOT_FOUND, "Only the decision page's browser session has a session.");
        }
        List<String> groups = Stream.of(Groups.USER, Groups.APPROVER, Groups.ADMIN).filter(user::hasGroup).toList();
        return new DecisionSession(user.tenantId(), user.userId(), groups, csrf.tokenFor(idToken), logoutPath,
                chatUrl.orElse(null));
    }
}
