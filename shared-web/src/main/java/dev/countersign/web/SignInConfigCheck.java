package dev.countersign.web;

import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import dev.countersign.contracts.Audiences;
import io.quarkus.runtime.StartupEvent;

/**
 * Refuses to start a service that names neither where its bearer tokens' keys come from nor a fixed key: without it,
 * quarkus-oidc quietly disables the default tenant (a named tenant exists) and every bearer request is refused, which
 * looks like an outage rather than a configuration error.
 */
@ApplicationScoped
public class SignInConfigCheck {

    /** The issuer the local stack's dev token endpoint signs as: never the one of an identity provider. */
    static final String DEV_ISSUER = "https://countersign.local/dev";

    void onStart(@Observes StartupEvent started,
            @ConfigProperty(name = "quarkus.oidc.auth-server-url") Optional<String> authServerUrl,
            @ConfigProperty(name = "quarkus.oidc.public-key") Optional<String> publicKey,
            @ConfigProperty(name = "quarkus.oidc.token.issuer") Optional<String> issuer,
            @ConfigProperty(name = "quarkus.oidc.web.tenant-enabled", defaultValue = "false") boolean pageSignIn,
            @ConfigProperty(name = "quarkus.oidc.web.client-id") Optional<String> pageClientId) {
        require(authServerUrl, publicKey, issuer);
        if (pageSignIn) {
            requirePageClientIsNoAudience(pageClientId);
        }
    }

    /**
     * The page's client id must be no API audience: an ID token's audience is its client id, so with a client named
     * like an audience every ID token of the page (which leaves the browser in a logout URL's {@code id_token_hint})
     * would pass as a bearer token, or as evidence.
     */
    static void requirePageClientIsNoAudience(Optional<String> clientId) {
        String id = clientId.orElse("");
        if (Set.of(Audiences.AGENT, Audiences.EXECUTOR, Audiences.INTEGRATION).contains(id)) {
            throw new IllegalStateException(("The page's OIDC client id %s is an API audience: register the page as a"
                    + " client of its own (EXECUTOR_OIDC_CLIENT_ID, AGENT_OIDC_CLIENT_ID), e.g. countersign-decision-page"
                    + " or countersign-chat, whose access tokens carry the API audience").formatted(id));
        }
    }

    /**
     * Exactly one of the identity provider's URL and a fixed public key, and with the provider's URL an issuer other
     * than the dev default (JWT_ISSUER left unset would refuse every token the provider signs).
     */
    static void require(Optional<String> authServerUrl, Optional<String> publicKey, Optional<String> issuer) {
        boolean url = authServerUrl.filter(value -> !value.isBlank()).isPresent();
        boolean key = publicKey.filter(value -> !value.isBlank()).isPresent();
        if (url == key) {
            throw new IllegalStateException(url
                    ? "Set only one of OIDC_AUTH_SERVER_URL and OIDC_PUBLIC_KEY"
                    : "Set OIDC_AUTH_SERVER_URL (your identity provider's issuer URL) or, for the local stack and"
                            + " tests, OIDC_PUBLIC_KEY: bearer tokens cannot be verified without one of them");
        }
        if (url && issuer.map(DEV_ISSUER::equals).orElse(true)) {
            throw new IllegalStateException(
                    "Set JWT_ISSUER to your identity provider's issuer (the iss of its tokens)");
        }
    }
}
