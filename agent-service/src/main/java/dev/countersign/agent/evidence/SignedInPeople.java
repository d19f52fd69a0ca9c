package dev.countersign.agent.evidence;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.contracts.Identifiers;
import dev.countersign.web.CurrentUser;
import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.SecurityIdentityAugmentor;
import io.smallrye.mutiny.Uni;

/**
 * Tells {@link ReaderGrants} of each person this service authenticated (a bearer token, or the chat's sign-in session)
 * and their access token, once quarkus-oidc verified it, so reads for them can get a grant. Changes nothing about the
 * identity.
 */
@ApplicationScoped
public class SignedInPeople implements SecurityIdentityAugmentor {

    private final ReaderGrants grants;

    public SignedInPeople(ReaderGrants grants) {
        this.grants = grants;
    }

    @Override
    public Uni<SecurityIdentity> augment(SecurityIdentity identity, AuthenticationRequestContext context) {
        AccessTokenCredential access = identity.isAnonymous()
                ? null
                : identity.getCredential(AccessTokenCredential.class);
        if (access != null && identity.getPrincipal() instanceof JsonWebToken jwt
                && jwt.getClaim(CurrentUser.TENANT_CLAIM) instanceof String tenant && Identifiers.isPrintableId(tenant)
                && Identifiers.isPrintableId(jwt.getSubject())) {
            grants.signedIn(new Person(tenant, jwt.getSubject()), access.getToken(),
                    Instant.ofEpochSecond(jwt.getExpirationTime()));
        }
        return Uni.createFrom().item(identity);
    }
}
