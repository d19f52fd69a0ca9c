package dev.countersign.web.session;

import java.net.URI;
import java.util.Set;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.web.ProblemException;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;

/**
 * Every change a browser session sends (a method other than GET, HEAD or OPTIONS, without a bearer token) must come
 * from this origin ({@code Origin} equal to the request's own scheme, host and port), as JSON, with the session's CSRF
 * token in {@code X-CSRF-TOKEN} ({@link CsrfTokens}). Otherwise it is refused with {@code csrf_refused} before the
 * endpoint runs, and nothing changes. Bearer requests are not affected: a browser never adds an Authorization header on
 * another origin's behalf.
 * <p>
 * Behind a proxy that terminates TLS, the request's own origin is only right with {@code HTTP_PROXY_FORWARDING=true};
 * without it every change from the page is refused (safe, and visible at once).
 */
public class SessionCsrfFilter {

    public static final String HEADER = "X-CSRF-TOKEN";
    private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS");

    private final CsrfTokens csrf;
    private final BrowserSessions sessions;
    private final CurrentIdentityAssociation identity;

    public SessionCsrfFilter(CsrfTokens csrf, BrowserSessions sessions, CurrentIdentityAssociation identity) {
        this.csrf = csrf;
        this.sessions = sessions;
        this.identity = identity;
    }

    @ServerRequestFilter
    public Uni<Void> refuseForeignChanges(ContainerRequestContext request, RoutingContext routing) {
        if (SAFE_METHODS.contains(request.getMethod()) || !sessions.isSession(routing)) {
            return Uni.createFrom().voidItem();
        }
        String origin = request.getHeaderString("Origin");
        if (origin == null || !origin.equals(ownOrigin(routing))) {
            return refused("This change did not come from this page's origin; nothing changed.");
        }
        if (request.getMediaType() == null || !MediaType.APPLICATION_JSON_TYPE.isCompatible(request.getMediaType())) {
            return refused("Changes from the page are sent as JSON; nothing changed.");
        }
        String presented = request.getHeaderString(HEADER);
        return identity.getDeferredIdentity().flatMap(signedIn -> {
            if (signedIn.isAnonymous()) {
                // Not signed in: the endpoint's own check answers 401.
                return Uni.createFrom().voidItem();
            }
            return csrf.matches((JsonWebToken) signedIn.getPrincipal(), presented)
                    ? Uni.createFrom().voidItem()
                    : refused("This change did not carry this session's CSRF token; reload the page. Nothing changed.");
        });
    }

    private static Uni<Void> refused(String detail) {
        return Uni.createFrom().failure(new ProblemException(ErrorCode.CSRF_REFUSED, detail));
    }

    /** scheme://host[:port] of this request, as a browser writes it in {@code Origin}. */
    static String ownOrigin(RoutingContext routing) {
        URI uri = URI.create(routing.request().absoluteURI());
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() == -1 ? "" : ":" + uri.getPort());
    }
}
