package dev.countersign.web;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;

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
            @ConfigProperty(name = "quarkus.oidc.token.issuer") Optional<String> issuer) {
        require(authServerUrl, publicKey, issuer);
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
