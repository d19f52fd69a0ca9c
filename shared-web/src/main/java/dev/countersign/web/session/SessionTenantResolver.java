package dev.countersign.web.session;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.oidc.TenantResolver;
import io.vertx.ext.web.RoutingContext;

/**
 * Bearer requests go to the default tenant (type service); the page and requests carrying its session cookie go to the
 * {@value BrowserSessions#TENANT} tenant (Authorization Code with PKCE, session cookie).
 */
@ApplicationScoped
public class SessionTenantResolver implements TenantResolver {

    private final BrowserSessions sessions;

    public SessionTenantResolver(BrowserSessions sessions) {
        this.sessions = sessions;
    }

    @Override
    public String resolve(RoutingContext context) {
        return sessions.isSession(context) ? BrowserSessions.TENANT : null;
    }
}
