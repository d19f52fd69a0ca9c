package dev.countersign.web.session;

import jakarta.enterprise.context.RequestScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.web.ProblemException;
import io.vertx.ext.web.RoutingContext;

/**
 * The signed-in page's session as its {@code GET /api/session} tells the page: the CSRF token its changes must carry
 * and where to sign out. Only a browser session has one; a bearer client gets 404 (it has no use for the token).
 */
@RequestScoped
public class PageSession {

    private final BrowserSessions sessions;
    private final CsrfTokens csrf;
    private final JsonWebToken idToken;
    private final RoutingContext routing;
    private final String logoutPath;

    public PageSession(BrowserSessions sessions, CsrfTokens csrf, JsonWebToken idToken, RoutingContext routing,
            @ConfigProperty(name = "quarkus.oidc.web.logout.path") String logoutPath) {
        this.sessions = sessions;
        this.csrf = csrf;
        this.idToken = idToken;
        this.routing = routing;
        this.logoutPath = logoutPath;
    }

    /** This session's CSRF token; 404 {@code not_found} for a request that is no browser session. */
    public String csrfToken() {
        if (!sessions.isSession(routing)) {
            throw new ProblemException(ErrorCode.NOT_FOUND, "Only the page's browser session has a session.");
        }
        return csrf.tokenFor(idToken);
    }

    /** The page's sign-out path on this origin (the server ends the session and signs out at the provider). */
    public String logoutPath() {
        return logoutPath;
    }
}
