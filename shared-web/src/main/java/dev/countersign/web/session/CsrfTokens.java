package dev.countersign.web.session;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.jwt.JsonWebToken;

import io.quarkus.runtime.Startup;

/**
 * The CSRF token of a browser session: an HMAC of this service's page (its cookie suffix), the signed-in person and
 * their identity provider session, under a secret of this service's. Stateless (every instance computes the same token)
 * and different for every sign-in. It binds the ID token's {@code sid}, else {@code auth_time}, else {@code iat}: with
 * {@code sid} or {@code auth_time} (Keycloak sends both) it stays the same across token refreshes; an identity provider
 * that sends neither makes it change at every refresh, and the page's next change after a refresh is refused until the
 * page reloads. The page label keeps a token of one page from being accepted by the other; it gives nothing where an
 * operator gives both services one secret (a compromised agent holding that secret computes the decision page's token
 * directly; the Origin check still stands): keep the secrets apart.
 * <p>
 * Limit: it is one token per sign-in, not per request; it guards against requests another origin makes the browser send
 * (with the Origin check and the JSON content type in {@link SessionCsrfFilter}), not against script running on this
 * origin, which can read it like the page does.
 */
@ApplicationScoped
@Startup
public class CsrfTokens {

    private final SessionConfig config;

    public CsrfTokens(SessionConfig config) {
        this.config = config;
    }

    /** The token for the session whose ID token is {@code idToken}. */
    public String tokenFor(JsonWebToken idToken) {
        String binding = firstPresent(idToken, "sid", "auth_time", "iat");
        String tenant = String.valueOf((Object) idToken.getClaim("tenant"));
        return hmac(String.join("\n", "countersign-csrf-v2", config.cookieSuffix(), tenant, idToken.getSubject(),
                binding));
    }

    /** Whether {@code presented} is the token of this session (constant-time comparison). */
    public boolean matches(JsonWebToken idToken, String presented) {
        if (presented == null || presented.isEmpty()) {
            return false;
        }
        return MessageDigest.isEqual(tokenFor(idToken).getBytes(StandardCharsets.US_ASCII),
                presented.getBytes(StandardCharsets.US_ASCII));
    }

    private static String firstPresent(JsonWebToken token, String... claims) {
        for (String claim : claims) {
            Object value = token.getClaim(claim);
            if (value != null) {
                return claim + "=" + value;
            }
        }
        throw new IllegalStateException("The ID token has none of " + String.join(", ", claims));
    }

    private String hmac(String message) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(config.csrfSecret().getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
