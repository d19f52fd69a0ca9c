package dev.countersign.web.session;

import java.util.List;
import java.util.Optional;

import jakarta.validation.constraints.Size;

import io.smallrye.config.ConfigMapping;

/**
 * A service's browser session (application.properties: {@code countersign.session.*}); the quarkus-oidc tenant
 * {@value BrowserSessions#TENANT} reads the same values where it needs them.
 */
@ConfigMapping(prefix = "countersign.session")
public interface SessionConfig {

    int MIN_SECRET_LENGTH = 32;

    /** The key of the CSRF tokens' HMAC: at least 32 characters, the same on every instance. */
    @Size(min = SessionConfig.MIN_SECRET_LENGTH, message = "must be at least {min} characters")
    String csrfSecret();

    /**
     * The page's paths, each exact or a prefix ending in {@code /*} (the syntax of
     * {@code quarkus.http.auth.permission.*.paths}): a request for them without a bearer token signs in by the session.
     */
    List<String> pages();

    /**
     * Paths never signed in by the session, whatever cookie comes along (agent-service's MCP endpoint): a request for
     * them is left to quarkus-oidc's own tenant choice ({@code tenant-paths}), so only a bearer token of that tenant
     * opens them. Same syntax as {@link #pages()}.
     */
    Optional<List<String>> bearerOnlyPaths();

    /** Names this service's session cookie ({@link BrowserSessions#sessionCookie}); unique per host. */
    String cookieSuffix();
}
