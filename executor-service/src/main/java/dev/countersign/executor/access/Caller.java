package dev.countersign.executor.access;

import jakarta.enterprise.context.RequestScoped;

import dev.countersign.web.CurrentUser;
import dev.countersign.web.session.BrowserSessions;
import io.vertx.ext.web.RoutingContext;

/** The caller of an HTTP request as the decision rule sees it: who, and whether through the decision page. */
@RequestScoped
public class Caller {

    private final CurrentUser user;
    private final BrowserSessions sessions;
    private final RoutingContext routing;

    public Caller(CurrentUser user, BrowserSessions sessions, RoutingContext routing) {
        this.user = user;
        this.sessions = sessions;
        this.routing = routing;
    }

    public Principal principal() {
        return Principal.of(user.userId(), user.groups(), user.isService());
    }

    /** {@link Channel#PAGE} for the decision page's browser session, {@link Channel#HTTP} for a bearer token. */
    public Channel channel() {
        return sessions.isSession(routing) ? Channel.PAGE : Channel.HTTP;
    }
}
