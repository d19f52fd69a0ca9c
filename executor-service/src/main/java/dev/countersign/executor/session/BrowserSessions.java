package dev.countersign.executor.session;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

/**
 * Which requests are a person's browser session on this origin (the decision page) rather than a bearer client: the one
 * rule the tenant resolver and the CSRF filter share, so that every request signed in by the session cookie is also a
 * request the CSRF check sees.
 */
public final class BrowserSessions {

    /** The quarkus-oidc tenant of the decision page (application.properties: {@code quarkus.oidc.web.*}). */
    public static final String TENANT = "web";
    /** Where the decision page lives; every request under it signs in through the session. */
    public static final String PAGE_PATH = "/decide";
    /** quarkus-oidc's session cookie for the tenant: {@code q_session} plus {@code _<tenant>}. */
    static final String SESSION_COOKIE = "q_session_" + TENANT;

    private BrowserSessions() {
    }

    /**
     * The decision page's own paths, and any request without an {@code Authorization} header that carries the session
     * cookie. A request with a bearer token is never a session request, whatever cookies it carries.
     */
    public static boolean isSession(RoutingContext context) {
        if (context.request().getHeader(HttpHeaders.AUTHORIZATION) != null) {
            return false;
        }
        String path = context.normalizedPath();
        return path.equals(PAGE_PATH) || path.startsWith(PAGE_PATH + "/") || hasSessionCookie(context);
    }

    private static boolean hasSessionCookie(RoutingContext context) {
        // Split-token or chunked sessions add suffixes; the prefix names the tenant.
        return context.request().cookies().stream().anyMatch(cookie -> cookie.getName().startsWith(SESSION_COOKIE));
    }
}
