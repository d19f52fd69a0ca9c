package dev.countersign.executor.policy;

import java.math.BigDecimal;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Groups;
import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.api.ApprovalPolicy;
import dev.countersign.contracts.api.AutoApplyBudget;
import dev.countersign.contracts.api.ExternalSendsPolicy;
import dev.countersign.contracts.catalogue.TierPolicy;
import dev.countersign.executor.db.TenantSessions;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/**
 * The caller's tenant's policies: the kill switch for agent writes, the separation-of-duties rules for HIGH actions,
 * the high-impact threshold, the external-sends switch and the auto-apply budget. Reading is open to the tenant;
 * changing is admin-only, and every change is audited by a trigger.
 */
@Path("/api/actions/policy")
@Authenticated
public class TenantPolicyResource {

    private static final BigDecimal MAX_THRESHOLD = new BigDecimal("1000000000000");

    private final PolicySettingsRepository policies;
    private final TenantSessions sessions;
    private final CurrentUser user;

    public TenantPolicyResource(PolicySettingsRepository policies, TenantSessions sessions,
            CurrentUser user) {
        this.policies = policies;
        this.sessions = sessions;
        this.user = user;
    }

    @GET
    @Path("/agent-writes")
    public Uni<AgentWritesPolicy> agentWrites() {
        return sessions.read(user.tenantId(), () -> policies.agentWrites(user.tenantId()));
    }

    @PUT
    @Path("/agent-writes")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<AgentWritesPolicy> setAgentWrites(AgentWritesPolicy request) {
        requireAdminPerson();
        if (request == null || request.mode() == null) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "Send {\"mode\": \"enabled\" | \"staged_only\" | \"disabled\"}.");
        }
        return sessions.run(actingUser(),
                () -> policies.setAgentWrites(user.tenantId(), request.mode(), user.userId()));
    }

    @GET
    @Path("/approvals")
    public Uni<ApprovalPolicy> approvals() {
        return sessions.read(user.tenantId(), () -> policies.approvals(user.tenantId()));
    }

    @PUT
    @Path("/approvals")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<ApprovalPolicy> setApprovals(ApprovalPolicy policy) {
        requireAdminPerson();
        if (policy == null || policy.highApprovals() < 1 || policy.highApprovals() > ApprovalPolicy.MAX_APPROVALS) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "Send {\"highApprovals\": 1 to %d, \"highNeedsOtherApprover\": true | false}."
                            .formatted(ApprovalPolicy.MAX_APPROVALS));
        }
        return sessions.run(actingUser(),
                () -> policies.setApprovals(user.tenantId(), policy, user.userId()));
    }

    /** The high-impact threshold: amounts at or above it make a money action HIGH (never applied on arrival). */
    @GET
    @Path("/tiers")
    public Uni<TierPolicy> tiers() {
        return sessions.read(user.tenantId(), () -> policies.tiers(user.tenantId()));
    }

    @PUT
    @Path("/tiers")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<TierPolicy> setTiers(TierPolicy policy) {
        requireAdminPerson();
        if (policy == null || policy.highImpactThreshold() == null || policy.highImpactThreshold().signum() <= 0
                || policy.highImpactThreshold().scale() > 2
                || policy.highImpactThreshold().compareTo(MAX_THRESHOLD) >= 0) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "Send {\"highImpactThreshold\": a positive amount with at most two decimals, below 10^12}.");
        }
        return sessions.run(actingUser(), () -> policies.setTiers(user.tenantId(), policy, user.userId()));
    }

    /** The kill switch for agent-initiated external sends (e-mail to a requestor, tickets). */
    @GET
    @Path("/external-sends")
    public Uni<ExternalSendsPolicy> externalSends() {
        return sessions.read(user.tenantId(), () -> policies.externalSends(user.tenantId()));
    }

    @PUT
    @Path("/external-sends")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<ExternalSendsPolicy> setExternalSends(ExternalSendsPolicy policy) {
        requireAdminPerson();
        if (policy == null || policy.enabled() == null) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, "Send {\"enabled\": true | false}.");
        }
        return sessions.run(actingUser(),
                () -> policies.setExternalSends(user.tenantId(), policy, user.userId()));
    }

    /**
     * The auto-apply budget: how many actions, and how much money, the tier rules may apply without a person per turn,
     * per user in 24 hours and per tenant in 24 hours.
     */
    @GET
    @Path("/auto-apply-budget")
    public Uni<AutoApplyBudget> autoApplyBudget() {
        return sessions.read(user.tenantId(), () -> policies.autoApplyBudget(user.tenantId()));
    }

    @PUT
    @Path("/auto-apply-budget")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<AutoApplyBudget> setAutoApplyBudget(AutoApplyBudget budget) {
        requireAdminPerson();
        String problem = budget == null ? "a JSON object is required" : budget.problem();
        if (problem != null) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, ("Send {\"turnCount\", \"turnAmount\","
                    + " \"userDayCount\", \"userDayAmount\", \"tenantDayCount\", \"tenantDayAmount\"}: %s; 0 turns"
                    + " automatic application off.").formatted(problem));
        }
        return sessions.run(actingUser(), () -> policies.setAutoApplyBudget(user.tenantId(), budget, user.userId()));
    }

    private Actor actingUser() {
        return new Actor(user.tenantId(), user.userId(), TenantTransactions.HTTP);
    }

    /**
     * An administrator who is a person: a service principal's token (an integration's) changes no policy, whatever
     * groups it carries (docs/security/authorization.md).
     */
    private void requireAdminPerson() {
        if (user.isService()) {
            throw new ProblemException(ErrorCode.FORBIDDEN,
                    "A service principal cannot change the tenant's policy: it needs an administrator who is a person.");
        }
        user.requireGroup(Groups.ADMIN);
    }
}
