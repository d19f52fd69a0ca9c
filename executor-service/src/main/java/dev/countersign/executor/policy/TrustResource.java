package dev.countersign.executor.policy;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import dev.countersign.contracts.api.TrustLevel;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.web.CurrentUser;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/** The caller's earned trust: how many MEDIUM actions in a row a person confirmed, and whether they now apply. */
@Path("/api/actions/trust")
@Authenticated
public class TrustResource {

    private final TenantTransactions transactions;
    private final TenantPolicyRepository policies;
    private final AutoApply autoApply;
    private final CurrentUser user;

    public TrustResource(TenantTransactions transactions, TenantPolicyRepository policies, AutoApply autoApply,
            CurrentUser user) {
        this.transactions = transactions;
        this.policies = policies;
        this.autoApply = autoApply;
        this.user = user;
    }

    @GET
    public Uni<TrustLevel> mine() {
        String tenantId = user.tenantId();
        String userId = user.userId();
        return transactions.read(tenantId, sql -> policies.agentWrites(sql, tenantId)
                .flatMap(writes -> autoApply.level(sql, tenantId, userId, writes.mode())));
    }
}
