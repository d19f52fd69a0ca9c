package dev.countersign.executor.members;

import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import dev.countersign.web.CurrentUser;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.smallrye.mutiny.Uni;

/**
 * Every request of a signed-in person (a bearer token, or the decision page's session) records them as a member of
 * their tenant ({@link MemberSightings}), in the background. Service principals (integrations, agent-service) are no
 * members; a request whose token names no valid tenant or subject records nothing and is refused by its endpoint.
 */
public class SightingFilter {

    private final CurrentIdentityAssociation identity;
    private final CurrentUser user;
    private final MemberSightings sightings;

    public SightingFilter(CurrentIdentityAssociation identity, CurrentUser user, MemberSightings sightings) {
        this.identity = identity;
        this.user = user;
        this.sightings = sightings;
    }

    @ServerRequestFilter
    public Uni<Void> recordSignedInPerson() {
        return identity.getDeferredIdentity().invoke(signedIn -> {
            if (signedIn.isAnonymous() || !(signedIn.getPrincipal() instanceof JsonWebToken token)) {
                return;
            }
            Sighting sighting;
            try {
                if (user.isService()) {
                    return;
                }
                sighting = Sighting.of(user.tenantId(), user.userId(), user.groups(), token);
            } catch (RuntimeException refused) {
                // No valid tenant or subject, or a token for two services' audiences: the endpoint answers it.
                return;
            }
            sightings.seen(sighting);
        }).replaceWithVoid();
    }
}
