package dev.countersign.agent.ui;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import dev.countersign.web.session.BrowserSessions;
import dev.countersign.web.session.CsrfTokens;
import io.quarkus.security.Authenticated;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /api/session}: who is signed in to the chat, the CSRF token its changes must carry, and where to sign out.
 * Only for the chat's browser session; a bearer client has no session and no use for the token.
 */
@Path("/api/session")
@Authenticated
public class ChatSessionResource {

    /** The chat's session as its page reads it. */
    public record ChatSession(String tenant, String user, String csrfToken, String logoutPath) {
    }

    private final CurrentUser user;
    private final JsonWebToken idToken;
    private final CsrfTokens csrf;
    private final BrowserSessions sessions;
    private final RoutingContext routing;
    private final String logoutPath;

    public ChatSessionResource(CurrentUser user, JsonWebToken idToken, CsrfTokens csrf, BrowserSessions sessions,
            RoutingContext routing, @ConfigProperty(name = "quarkus.oidc.web.logout.path") String logoutPath) {
        this.user = user;
        this.idToken = idToken;
        this.csrf = csrf;
        this.sessions = sessions;
        this.routing = routing;
        this.logoutPath = logoutPath;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public ChatSession session() {
        if (!sessions.isSession(routing)) {
            throw new ProblemException(ErrorCode.NOT_FOUND, "Only the chat's browser session has a session.");
        }
        return new ChatSession(user.tenantId(), user.userId(), csrf.tokenFor(idToken), logoutPath);
    }
}
