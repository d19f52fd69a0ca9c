package dev.countersign.agent.ui;

import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/ui/config}: where the web UI links for decisions and how it signs in. Public: it names URLs the page
 * needs before anyone has signed in, and no secret.
 */
@Path("/api/ui/config")
@PermitAll
public class UiConfigResource {

    /**
     * @param executorUrl
     *            executor-service's base URL, or "" for the same origin
     * @param devTokenUrl
     *            the local stack's demo sign-in endpoint, or null outside the local stack
     */
    public record UiSettings(String executorUrl, String devTokenUrl) {
    }

    private final UiConfig config;

    public UiConfigResource(UiConfig config) {
        this.config = config;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public UiSettings get() {
        return new UiSettings(config.executorUrl().map(UiConfigResource::withoutTrailingSlash).orElse(""),
                config.devTokenUrl().orElse(null));
    }

    private static String withoutTrailingSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
