package dev.countersign.web.session;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.oidc.TenantResolver;
import io.vertx.ext.web.RoutingContext;

/**
 * Bearer requests go to the default tenant (type service); the page and requests carrying its session cookie go to the
 * {@value BrowserSessions#TENANT} tenant (Authorization Code with PKCE, session cookie); a bearer-only path (the
 * agent's MCP endpoint) to the tenant whose {@code tenant-paths} name it. No request goes to any other tenant: for all
 * but the bearer-only paths the resolver names the default one rather than answering null, since with null quarkus-oidc
 * goes on to pick a static tenant whose id is a segment of the request's path (executor-service's tenant
 * {@code evidence}, which takes the agent's and the integrations' tokens, would then have verified a bearer token sent
 * to {@code .../evidence}).
 */
@ApplicationScoped
public class SessionTenantResolver implements TenantResolver {

    private final BrowserSessions sessions;

    public SessionTenantResolver(BrowserSessions sessions) {
        this.sessions = sessions;
    }

    /** quarkus-oidc's id of the tenant configured by the unnamed {@code quarkus.oidc.*} properties. */
    public static final String DEFAULT_TENANT = "Default";

    /**
     * The page's tenant for a session request. A bearer-only path (agent-service's MCP endpoint) is left to
     * quarkus-oidc's own choice (null), which takes the named tenant whose {@code tenant-paths} match. Every other
     * request is the default bearer tenant's, chosen here: quarkus-oidc's own choice would also pick a named tenant by
     * a path segment spelled like it ({@code /api/actions/evidence} chose the executor's evidence tenant, and an
     * integration's token opened the API; EvidenceTest).
     */
    @Override
    public String resolve(RoutingContext context) {
        if (sessions.isBearerOnly(context.normalizedPath())) {
            return null;
        }
        return sessions.isSession(context) ? BrowserSessions.TENANT : DEFAULT_TENANT;
    }
}
