package dev.countersign.executor.policy;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import dev.countersign.contracts.api.TrustLevel;
import dev.countersign.executor.db.TenantSessions;
import dev.countersign.web.CurrentUser;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/** The caller's earned trust: how many MEDIUM actions in a row a person confirmed, and whether they now apply. */
@Path("/api/actions/trust")
@Authenticated
public class TrustResource {

    private final TenantSessions sessions;
    private final PolicySettingsRepository policies;
    private final UserTrustRepository trust;
    private final EarnedTrust earnedTrust;
    private final CurrentUser user;

    public TrustResource(TenantSessions sessions, PolicySettingsRepository policies, UserTrustRepository trust,
            EarnedTrust earnedTrust, CurrentUser user) {
        this.sessions = sessions;
        this.policies = policies;
        this.trust = trust;
        this.earnedTrust = earnedTrust;
        this.user = user;
    }

    @GET
    public Uni<TrustLevel> mine() {
        String tenantId = user.tenantId();
        String userId = user.userId();
        return sessions.read(tenantId, () -> policies.agentWrites(tenantId)
                .flatMap(writes -> trust.run(tenantId, userId)
                        .map(run -> earnedTrust.level(run, userId, writes.mode()))));
    }
}
