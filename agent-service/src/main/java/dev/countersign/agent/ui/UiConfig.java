package dev.countersign.agent.ui;

import java.util.Optional;

import io.smallrye.config.ConfigMapping;

/**
 * What the web UI needs to know about its surroundings. The same values make the UI's Content-Security-Policy
 * ({@code connect-src}), so the browser may reach exactly these places and this service.
 */
@ConfigMapping(prefix = "countersign.ui")
public interface UiConfig {

    /**
     * executor-service's base URL as the browser reaches it; empty when it is behind the same origin (one ingress).
     * Decisions go there from the browser, never through this service.
     */
    Optional<String> executorUrl();

    /** The local stack's dev token endpoint for demo sign-in; empty in production, where an OIDC provider signs in. */
    Optional<String> devTokenUrl();
}
