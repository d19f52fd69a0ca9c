package dev.countersign.agent.mcp;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Every 401 of the MCP endpoint carries the bearer challenge the MCP authorization specification asks for (RFC 6750
 * section 3, RFC 9728 section 5.1): quarkus-oidc 3.33.2 sends {@code WWW-Authenticate} only when no token came, and a
 * 401 for a token it refused (expired, another audience, a bad signature) went without one, so a client could not tell
 * that it should sign in again. Such an answer gets {@code Bearer error="invalid_token"} and, where the protected
 * resource metadata is published, its {@code resource_metadata} URL, built as quarkus-oidc builds it for the no-token
 * answer (this request's host, {@code https} unless MCP_FORCE_HTTPS=false).
 * <p>
 * Limit: the error is always {@code invalid_token}: which check refused the token is not told (quarkus-oidc does not
 * hand it on, and a client needs no more than "sign in again").
 */
@ApplicationScoped
public class McpChallenge {

    static final String METADATA_PATH = "/.well-known/oauth-protected-resource/mcp";

    private final boolean metadata;
    private final boolean forceHttps;
    private final List<String> paths;

    public McpChallenge(@ConfigProperty(name = "quarkus.oidc.mcp.resource-metadata.enabled") boolean metadata,
            @ConfigProperty(name = "quarkus.oidc.mcp.resource-metadata.force-https-scheme") boolean forceHttps,
            @ConfigProperty(name = McpFailures.PATHS) List<String> paths) {
        this.metadata = metadata;
        this.forceHttps = forceHttps;
        this.paths = paths;
    }

    void onStart(@Observes Router router) {
        for (String path : paths) {
            router.route(path).order(Integer.MIN_VALUE).handler(this::challengeEveryRefusal);
        }
    }

    private void challengeEveryRefusal(RoutingContext context) {
        context.addHeadersEndHandler(ignored -> {
            if (context.response().getStatusCode() == 401
                    && !context.response().headers().contains(HttpHeaderNames.WWW_AUTHENTICATE)) {
                context.response().putHeader(HttpHeaderNames.WWW_AUTHENTICATE, challenge(context));
            }
        });
        context.next();
    }

    String challenge(RoutingContext context) {
        String challenge = "Bearer error=\"invalid_token\"";
        if (metadata) {
            String scheme = forceHttps ? "https" : context.request().scheme();
            challenge += ", resource_metadata=\"%s://%s%s\"".formatted(scheme, context.request().authority(),
                    METADATA_PATH);
        }
        return challenge;
    }
}
