package dev.countersign.executor.session;

import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Groups;
import dev.countersign.contracts.api.DecisionSession;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
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
    private final SessionConfig config;
    private final RoutingContext routing;

    public SessionResource(CurrentUser user, JsonWebToken idToken, CsrfTokens csrf, SessionConfig config,
            RoutingContext routing) {
        this.user = user;
        this.idToken = idToken;
        this.csrf = csrf;
        this.config = config;
        this.routing = routing;
    }

    @GET
    public DecisionSession session() {
        if (!BrowserSessions.isSession(routing)) {
            throw new ProblemException(ErrorCode.NOT_FOUND, "Only the decision page's browser session has a session.");
        }
        List<String> groups = java.util.stream.Stream.of(Groups.USER, Groups.APPROVER, Groups.ADMIN)
                .filter(user::hasGroup).toList();
        return new DecisionSession(user.tenantId(), user.userId(), groups, csrf.tokenFor(idToken),
                BrowserSessions.PAGE_PATH + "/logout", config.chatUrl().orElse(null));
    }
}
