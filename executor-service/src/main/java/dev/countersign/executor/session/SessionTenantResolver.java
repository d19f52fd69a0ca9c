package dev.countersign.executor.session;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.oidc.TenantResolver;
import io.vertx.ext.web.RoutingContext;

/**
 * Bearer requests go to the default tenant (type service); the decision page and requests carrying its session cookie
 * go to the {@value BrowserSessions#TENANT} tenant (Authorization Code with PKCE, session cookie).
 */
@ApplicationScoped
public class SessionTenantResolver implements TenantResolver {

    @Override
    public String resolve(RoutingContext context) {
        return BrowserSessions.isSession(context) ? BrowserSessions.TENANT : null;
    }
}
