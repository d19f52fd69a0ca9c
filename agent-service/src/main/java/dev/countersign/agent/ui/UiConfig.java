package dev.countersign.agent.ui;

import java.util.Optional;

import io.smallrye.config.ConfigMapping;

/**
 * What the web UI needs to know about its surroundings. The dev token endpoint is in the UI's Content-Security-Policy
 * ({@code connect-src}); the executor is not: the page only links to it.
 */
@ConfigMapping(prefix = "countersign.ui")
public interface UiConfig {

    /**
     * executor-service's base URL as the browser reaches it; empty when it is behind the same origin (one ingress). The
     * chat's cards link to its decision page ({@code /decide/}); people decide there, never on this service's page.
     */
    Optional<String> executorUrl();

    /** The local stack's dev token endpoint for demo sign-in; empty in production, where an OIDC provider signs in. */
    Optional<String> devTokenUrl();
}
