package dev.countersign.agent.evidence;

import java.time.Instant;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.contracts.Identifiers;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.session.BrowserSessions;
import dev.countersign.web.session.SessionTenantResolver;
import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.SecurityIdentityAugmentor;
import io.smallrye.mutiny.Uni;

/**
 * Tells {@link ReaderGrants} of each person this service authenticated (a bearer token, or the chat's sign-in session)
 * and their access token, once quarkus-oidc verified it, so reads for them can get a grant. Changes nothing about the
 * identity.
 * <p>
 * Only the tokens of the agent's own audience count: those of the default bearer tenant and the chat's session
 * ({@link #PERSON_TENANTS}). An MCP client's token (the {@code mcp} tenant) is never remembered here, so it is never
 * sent to the executor for a grant: an MCP call's reads get theirs from the evidence it was exchanged for.
 */
@ApplicationScoped
public class SignedInPeople implements SecurityIdentityAugmentor {

    /** quarkus-oidc's ids of the tenants whose tokens are the agent audience's: the default one and the chat's. */
    static final Set<String> PERSON_TENANTS = Set.of(SessionTenantResolver.DEFAULT_TENANT, BrowserSessions.TENANT);
    /** The identity attribute quarkus-oidc names the tenant that verified the token by. */
    static final String TENANT_ATTRIBUTE = "tenant-id";

    private final ReaderGrants grants;

    public SignedInPeople(ReaderGrants grants) {
        this.grants = grants;
    }

    @Override
    public Uni<SecurityIdentity> augment(SecurityIdentity identity, AuthenticationRequestContext context) {
        AccessTokenCredential access = identity.isAnonymous()
                ? null
                : identity.getCredential(AccessTokenCredential.class);
        if (access != null && PERSON_TENANTS.contains(identity.<String>getAttribute(TENANT_ATTRIBUTE))
                && identity.getPrincipal() instanceof JsonWebToken jwt
                && jwt.getClaim(CurrentUser.TENANT_CLAIM) instanceof String tenant && Identifiers.isPrintableId(tenant)
                && Identifiers.isPrintableId(jwt.getSubject())) {
            grants.signedIn(new Person(tenant, jwt.getSubject()), access.getToken(),
                    Instant.ofEpochSecond(jwt.getExpirationTime()));
        }
        return Uni.createFrom().item(identity);
    }
}
