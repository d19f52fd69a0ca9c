package dev.countersign.web.session;

import java.util.List;
import java.util.stream.Stream;

import jakarta.enterprise.context.ApplicationScoped;

import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

/**
 * Which requests are a person's browser session on this origin (the decision page on executor-service, the chat on
 * agent-service) rather than a bearer client: the one rule the tenant resolver and the CSRF filter share, so that every
 * request signed in by the session cookie is also a request the CSRF check sees.
 */
@ApplicationScoped
public class BrowserSessions {

    /** The quarkus-oidc tenant of a service's page (application.properties: {@code quarkus.oidc.web.*}). */
    public static final String TENANT = "web";

    private final PathPatterns pages;
    private final PathPatterns bearerOnly;
    private final String sessionCookie;

    public BrowserSessions(SessionConfig config) {
        this.pages = PathPatterns.of(config.pages());
        this.bearerOnly = PathPatterns.of(config.bearerOnlyPaths().orElse(List.of()));
        this.sessionCookie = sessionCookie(config.cookieSuffix());
    }

    /** Paths as {@code quarkus.http.auth.permission.*.paths} writes them: exact, or a prefix ending in {@code /*}. */
    record PathPatterns(List<String> exact, List<String> prefixes) {

        static PathPatterns of(List<String> paths) {
            return new PathPatterns(paths.stream().filter(path -> !path.endsWith("/*")).toList(),
                    paths.stream().filter(path -> path.endsWith("/*")).map(path -> path.substring(0, path.length() - 1))
                            .toList());
        }

        /**
         * Matched without matrix parameters ({@code /mcp;x} is {@code /mcp}), as quarkus-oidc and the HTTP permissions
         * match them.
         */
        boolean matches(String path) {
            String plain = path.replaceAll(";[^/]*", "");
            return exact.contains(plain) || prefixes.stream().anyMatch(plain::startsWith);
        }
    }

    /**
     * quarkus-oidc's session cookie of the {@value #TENANT} tenant with {@code cookie-suffix} set: {@code q_session},
     * the tenant and the suffix. Two services on one host (the local stack: localhost, two ports) share cookies, so
     * each names its own.
     */
    static String sessionCookie(String suffix) {
        return "q_session_" + TENANT + "_" + suffix;
    }

    /** Whether {@code path} is one of {@link SessionConfig#bearerOnlyPaths()}: never a session request. */
    public boolean isBearerOnly(String path) {
        return bearerOnly.matches(path);
    }

    /**
     * The page's own paths, and any request without an {@code Authorization} header that carries this service's session
     * cookie. A request with a bearer token, or for a bearer-only path, is never a session request, whatever cookies it
     * carries.
     */
    public boolean isSession(RoutingContext context) {
        return isSession(context.request().getHeader(HttpHeaders.AUTHORIZATION), context.normalizedPath(),
                context.request().cookies().stream().map(Cookie::getName));
    }

    /** The rule itself, on a request's {@code Authorization} header (or null), normalised path and cookie names. */
    boolean isSession(String authorization, String path, Stream<String> cookieNames) {
        if (authorization != null || bearerOnly.matches(path)) {
            return false;
        }
        return pages.matches(path)
                // Split-token or chunked sessions add suffixes to the name.
                || cookieNames.anyMatch(name -> name.equals(sessionCookie) || name.startsWith(sessionCookie + "_"));
    }
}
