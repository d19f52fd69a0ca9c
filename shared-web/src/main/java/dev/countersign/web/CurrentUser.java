package dev.countersign.web;

import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.RequestScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Identifiers;
import io.quarkus.security.UnauthorizedException;

/**
 * The caller, from the verified bearer token: the tenant from the {@code tenant} claim, the user from {@code sub}. Both
 * must be 1 to 128 printable characters; a token without them, or whose audiences include the one this service refuses
 * ({@code countersign.security.refused-audience}), is unauthenticated.
 */
@RequestScoped
public class CurrentUser {

    public static final String TENANT_CLAIM = "tenant";

    private final JsonWebToken token;
    private final Optional<String> refusedAudience;

    public CurrentUser(JsonWebToken token,
            @ConfigProperty(name = "countersign.security.refused-audience") Optional<String> refusedAudience) {
        this.token = token;
        this.refusedAudience = refusedAudience;
    }

    public String tenantId() {
        checkAudience();
        // A claim of another JSON type (a number, an object) is no tenant either.
        Object tenant = token.getClaim(TENANT_CLAIM);
        if (!(tenant instanceof String name) || !Identifiers.isPrintableId(name)) {
            throw new UnauthorizedException("the bearer token names no valid tenant");
        }
        return name;
    }

    public String userId() {
        checkAudience();
        String subject = token.getSubject();
        if (subject == null || !Identifiers.isPrintableId(subject)) {
            throw new UnauthorizedException("the bearer token names no valid user");
        }
        return subject;
    }

    /**
     * Whether the caller is a service principal (an integration's client-credentials token), never a person, whatever
     * groups its token carries ({@link #isServiceToken}).
     */
    public boolean isService() {
        checkAudience();
        return isServiceToken(token);
    }

    /**
     * A client-credentials token: its subject is its own client ({@code client_id} or {@code azp}, RFC 9068's advice
     * for that grant), or a service account named for one ({@code service-account-<client>}, Keycloak's name in
     * {@code sub} or {@code preferred_username}). Limit: an identity provider that names service accounts otherwise is
     * not recognised; its service tokens then pass as persons, so give integrations no person-like subject.
     */
    public static boolean isServiceToken(JsonWebToken jwt) {
        String subject = jwt.getSubject();
        Object clientId = jwt.getClaim("client_id");
        Object authorisedParty = jwt.getClaim("azp");
        Object username = jwt.getClaim("preferred_username");
        return subject != null && (subject.equals(clientId) || subject.equals(authorisedParty)
                || subject.startsWith(SERVICE_ACCOUNT_PREFIX)
                || username instanceof String name && name.startsWith(SERVICE_ACCOUNT_PREFIX));
    }

    private static final String SERVICE_ACCOUNT_PREFIX = "service-account-";

    /** Whether the token's groups include {@code group}. */
    public boolean hasGroup(String group) {
        checkAudience();
        return token.getGroups() != null && token.getGroups().contains(group);
    }

    /** Refuses with 403 problem+json unless the token's groups include {@code group}. */
    public void requireGroup(String group) {
        if (!hasGroup(group)) {
            throw new ProblemException(ErrorCode.FORBIDDEN,
                    "This needs the '%s' role; ask your administrator.".formatted(group));
        }
    }

    private void checkAudience() {
        Set<String> audiences = token.getAudience();
        if (refusedAudience.isPresent() && audiences != null && audiences.contains(refusedAudience.get())) {
            throw new UnauthorizedException("the bearer token is also valid for another service");
        }
    }
}
