package dev.countersign.agent.ui;

import java.util.List;

import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import dev.countersign.contracts.api.KindView;
import dev.countersign.contracts.catalogue.ActionCatalogue;

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
     * @param session
     *            true where people sign in to the chat through the identity provider (the page holds no token)
     * @param kinds
     *            every declared action kind as a card names it (from the catalogue: the page names no kind)
     */
    public record UiSettings(String executorUrl, String devTokenUrl, boolean session, List<KindView> kinds) {
    }

    /** Labels only: the chat's cards undo nothing (deciding happens on the decision page). */
    private static final List<KindView> KINDS = ActionCatalogue.all().stream()
            .map(definition -> KindView.of(definition, false)).toList();

    private final UiConfig config;
    private final boolean session;

    public UiConfigResource(UiConfig config,
            @ConfigProperty(name = "quarkus.oidc.web.tenant-enabled", defaultValue = "false") boolean session) {
        this.config = config;
        this.session = session;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public UiSettings get() {
        return new UiSettings(config.executorUrl().map(UiConfigResource::withoutTrailingSlash).orElse(""),
                session ? null : config.devTokenUrl().orElse(null), session, KINDS);
    }

    private static String withoutTrailingSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
