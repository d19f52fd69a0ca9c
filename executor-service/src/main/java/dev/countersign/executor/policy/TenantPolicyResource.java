package dev.countersign.executor.policy;

import java.util.List;
import java.util.UUID;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.api.ApprovalPolicy;
import dev.countersign.contracts.api.AutoApplyBudget;
import dev.countersign.contracts.api.ExternalSendsPolicy;
import dev.countersign.contracts.api.McpAutoApplyPolicy;
import dev.countersign.contracts.api.PolicyChangeView;
import dev.countersign.contracts.api.SecondDevicePolicy;
import dev.countersign.contracts.api.WebhookOriginsPolicy;
import dev.countersign.contracts.catalogue.TierPolicy;
import dev.countersign.executor.db.TenantSessions;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.policy.change.PolicyChanges;
import dev.countersign.executor.policy.change.PolicySetting;
import dev.countersign.executor.policy.change.PolicySettings;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.Ids;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/**
 * The caller's tenant's policies: the kill switch for agent writes, the separation-of-duties rules for HIGH actions,
 * the high-impact threshold, the external-sends switch and the auto-apply budget. Reading is open to the tenant;
 * changing is for administrators who are persons ({@link PolicyAdministrators}, checked before the body is read), and
 * every change is audited by a trigger. A change that weakens protection is staged until a second administrator
 * confirms it ({@link PolicyChanges}).
 */
@Path("/api/actions/policy")
@Authenticated
public class TenantPolicyResource {

    private static final String REQUIRED = "must be a JSON object";

    private final PolicySettingsRepository policies;
    private final TenantSessions sessions;
    private final CurrentUser user;
    private final PolicyChanges changes;

    public TenantPolicyResource(PolicySettingsRepository policies, TenantSessions sessions,
            CurrentUser user, PolicyChanges changes) {
        this.changes = changes;
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
    @PolicyAdministrators.Only
    public Uni<Response> setAgentWrites(@NotNull(message = REQUIRED) @Valid AgentWritesPolicy request) {
        return change(PolicySettings.AGENT_WRITES, request);
    }

    @GET
    @Path("/approvals")
    public Uni<ApprovalPolicy> approvals() {
        return sessions.read(user.tenantId(), () -> policies.approvals(user.tenantId()));
    }

    @PUT
    @Path("/approvals")
    @Consumes(MediaType.APPLICATION_JSON)
    @PolicyAdministrators.Only
    public Uni<Response> setApprovals(@NotNull(message = REQUIRED) @Valid ApprovalPolicy policy) {
        return change(PolicySettings.APPROVALS, policy);
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
    @PolicyAdministrators.Only
    public Uni<Response> setTiers(@NotNull(message = REQUIRED) @Valid TierPolicy policy) {
        return change(PolicySettings.TIERS, policy);
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
    @PolicyAdministrators.Only
    public Uni<Response> setExternalSends(@NotNull(message = REQUIRED) @Valid ExternalSendsPolicy policy) {
        return change(PolicySettings.EXTERNAL_SENDS, policy);
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
    @PolicyAdministrators.Only
    public Uni<Response> setAutoApplyBudget(@NotNull(message = REQUIRED) @Valid AutoApplyBudget budget) {
        return change(PolicySettings.AUTO_APPLY_BUDGET, budget);
    }

    /**
     * The action kinds whose proposals through an MCP client may apply on arrival (under the tier rules and the
     * auto-apply budget); none unless administrators opted kinds in (docs/mcp.md).
     */
    @GET
    @Path("/mcp-auto-apply")
    public Uni<McpAutoApplyPolicy> mcpAutoApply() {
        return sessions.read(user.tenantId(), () -> policies.mcpAutoApply(user.tenantId()));
    }

    @PUT
    @Path("/mcp-auto-apply")
    @Consumes(MediaType.APPLICATION_JSON)
    @PolicyAdministrators.Only
    public Uni<Response> setMcpAutoApply(@NotNull(message = REQUIRED) @Valid McpAutoApplyPolicy policy) {
        return change(PolicySettings.MCP_AUTO_APPLY, policy);
    }

    /**
     * The origins the tenant's webhook notifications may go to: the egress allow-list of notifications
     * (docs/approvals.md); none unless administrators named some.
     */
    @GET
    @Path("/webhook-origins")
    public Uni<WebhookOriginsPolicy> webhookOrigins() {
        return sessions.read(user.tenantId(), () -> policies.webhookOrigins(user.tenantId()));
    }

    @PUT
    @Path("/webhook-origins")
    @Consumes(MediaType.APPLICATION_JSON)
    @PolicyAdministrators.Only
    public Uni<Response> setWebhookOrigins(@NotNull(message = REQUIRED) @Valid WebhookOriginsPolicy policy) {
        return change(PolicySettings.WEBHOOK_ORIGINS, policy);
    }

    /**
     * The kinds below HIGH whose proposals are also asked on second devices (docs/approvals.md); none unless
     * administrators named some. Every HIGH action is.
     */
    @GET
    @Path("/second-device")
    public Uni<SecondDevicePolicy> secondDevice() {
        return sessions.read(user.tenantId(), () -> policies.secondDevice(user.tenantId()));
    }

    @PUT
    @Path("/second-device")
    @Consumes(MediaType.APPLICATION_JSON)
    @PolicyAdministrators.Only
    public Uni<Response> setSecondDevice(@NotNull(message = REQUIRED) @Valid SecondDevicePolicy policy) {
        return change(PolicySettings.SECOND_DEVICE, policy);
    }

    /**
     * The tenant's changes that weaken protection, waiting for a second administrator (administrators only).
     */
    @GET
    @Path("/changes")
    @PolicyAdministrators.Only
    public Uni<List<PolicyChangeView>> pendingChanges() {
        return changes.pending(user.tenantId());
    }

    /** A second administrator applies a staged change (docs/security/authorization.md, two persons for loosening). */
    @POST
    @Path("/changes/{id}/confirm")
    @PolicyAdministrators.Only
    public Uni<PolicyChangeView> confirmChange(@PathParam("id") String id) {
        return changes.confirm(actingUser(), changeId(id));
    }

    /** Any administrator, its proposer included, rejects a staged change. */
    @POST
    @Path("/changes/{id}/reject")
    @PolicyAdministrators.Only
    public Uni<PolicyChangeView> rejectChange(@PathParam("id") String id) {
        return changes.reject(actingUser(), changeId(id));
    }

    private static UUID changeId(String id) {
        return Ids.parseOrNotFound(id, ErrorCode.NOT_FOUND, "No such policy change in your tenant.");
    }

    /**
     * Sets {@code setting}: 200 with the value as stored when the change keeps or tightens protection, 202 with the
     * staged change when it weakens it (a second administrator confirms it).
     */
    private <T> Uni<Response> change(PolicySetting<T> setting, T value) {
        return changes.change(actingUser(), setting, value)
                .map(answer -> answer instanceof PolicyChanges.Staged<T> staged
                        ? Response.accepted(staged.change()).build()
                        : Response.ok(((PolicyChanges.Applied<T>) answer).value()).build());
    }

    private Actor actingUser() {
        return new Actor(user.tenantId(), user.userId(), TenantTransactions.HTTP);
    }
}
