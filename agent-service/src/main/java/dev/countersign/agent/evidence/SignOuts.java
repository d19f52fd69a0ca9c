package dev.countersign.agent.evidence;

import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.logging.Logger;

import dev.countersign.web.CurrentUser;
import io.quarkus.oidc.SecurityEvent;

/**
 * When a person signs out of the chat (quarkus-oidc's logout, initiated here or by the identity provider), this
 * instance forgets their token and ends its reader grant of theirs ({@link ReaderGrants#signedOut}). Limit: only the
 * instance that serves the sign-out learns of it; grants other replicas hold end with their lifetime.
 */
@ApplicationScoped
public class SignOuts {

    private static final Logger LOG = Logger.getLogger(SignOuts.class);
    private static final Set<SecurityEvent.Type> SIGN_OUTS = Set.of(SecurityEvent.Type.OIDC_LOGOUT_RP_INITIATED,
            SecurityEvent.Type.OIDC_LOGOUT_RP_INITIATED_SESSION_EXPIRED,
            SecurityEvent.Type.OIDC_BACKCHANNEL_LOGOUT_INITIATED,
            SecurityEvent.Type.OIDC_FRONTCHANNEL_LOGOUT_COMPLETED);

    private final ReaderGrants grants;

    public SignOuts(ReaderGrants grants) {
        this.grants = grants;
    }

    void onSecurityEvent(@Observes SecurityEvent event) {
        if (!SIGN_OUTS.contains(event.getEventType()) || event.getSecurityIdentity() == null
                || !(event.getSecurityIdentity().getPrincipal() instanceof JsonWebToken jwt)
                || !(jwt.getClaim(CurrentUser.TENANT_CLAIM) instanceof String tenant) || jwt.getSubject() == null) {
            return;
        }
        grants.signedOut(new Person(tenant, jwt.getSubject())).subscribe().with(
                ended -> LOG.debugf("A sign-out ended this instance's reader grant: %s", ended),
                failure -> LOG.warnf("A sign-out's reader grant was not ended (it lives out its lifetime): %s",
                        failure.getClass().getSimpleName()));
    }
}
