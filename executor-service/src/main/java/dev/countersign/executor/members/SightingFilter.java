package dev.countersign.executor.members;

import java.time.Instant;

import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import dev.countersign.web.CurrentUser;
import dev.countersign.web.TokenRules;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.smallrye.mutiny.Uni;

/**
 * Every request of a signed-in person (a bearer token, or the decision page's session) records them as a member of
 * their tenant ({@link MemberSightings}; the request waits for that write once in a while, never fails for it). Service
 * principals (integrations, agent-service) are no members. A request whose credentials do not verify, or name no valid
 * tenant or subject, records nothing here and is answered by its endpoint as before (this filter's own authentication
 * of it fails quietly: a permitted endpoint still serves it).
 */
public class SightingFilter {

    private final CurrentIdentityAssociation identity;
    private final TokenRules rules;
    private final MemberSightings sightings;

    public SightingFilter(CurrentIdentityAssociation identity, TokenRules rules, MemberSightings sightings) {
        this.identity = identity;
        this.rules = rules;
        this.sightings = sightings;
    }

    @ServerRequestFilter
    public Uni<Void> recordSignedInPerson() {
        return identity.getDeferredIdentity()
                .onFailure().recoverWithNull()
                .flatMap(signedIn -> {
                    if (signedIn == null || signedIn.isAnonymous()
                            || !(signedIn.getPrincipal() instanceof JsonWebToken token)) {
                        return Uni.createFrom().voidItem();
                    }
                    // The caller over the token just resolved here (the request-scoped one would resolve it again,
                    // blocking, on an endpoint that asks for no sign-in): a bearer request's access token, or the
                    // decision page session's ID token, which carries the same tenant, groups and address claims.
                    CurrentUser user = new CurrentUser(token, rules);
                    Sighting sighting;
                    try {
                        if (user.isService()) {
                            return Uni.createFrom().voidItem();
                        }
                        sighting = Sighting.of(user.tenantId(), user.userId(), user.groups(), token);
                    } catch (UnauthorizedException refused) {
                        // No valid tenant or subject, or a token for two services' audiences: the endpoint answers.
                        return Uni.createFrom().voidItem();
                    }
                    return sightings.seen(sighting, Instant.ofEpochSecond(token.getIssuedAtTime()));
                });
    }
}
