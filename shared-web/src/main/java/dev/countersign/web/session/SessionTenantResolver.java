package dev.countersign.web.session;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.oidc.TenantResolver;
import io.vertx.ext.web.RoutingContext;

/**
 * Bearer requests go to the default tenant (type service); the page and requests carrying its session cookie go to the
 * {@value BrowserSessions#TENANT} tenant (Authorization Code with PKCE, session cookie). No request goes to any other
 * tenant: the resolver names the default one rather than answering null, since with null quarkus-oidc goes on to pick a
 * static tenant whose id is a segment of the request's path (executor-service's tenant {@code evidence}, which takes
 * the agent's and the integrations' tokens, would then have verified a bearer token sent to {@code .../evidence}).
 */
@ApplicationScoped
public class SessionTenantResolver implements TenantResolver {

    private final BrowserSessions sessions;

    public SessionTenantResolver(BrowserSessions sessions) {
        this.sessions = sessions;
    }

    /**
     * The page's tenant for a session request; otherwise no choice (null), so quarkus-oidc goes on to its own: a named
     * tenant whose {@code tenant-paths} match (agent-service's {@code mcp}), else the default bearer tenant.
     */
    @Override
    public String resolve(RoutingContext context) {
        return sessions.isSession(context) ? BrowserSessions.TENANT : null;
    }
}
