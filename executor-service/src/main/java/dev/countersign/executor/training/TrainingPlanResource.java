package dev.countersign.executor.training;

import java.util.List;
import java.util.Objects;
import java.util.UUID;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.MediaType;

import org.hibernate.exception.ConstraintViolationException;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Tier;
import dev.countersign.contracts.api.PlanCommitRequest;
import dev.countersign.contracts.api.PlanCommitted;
import dev.countersign.contracts.api.TrainingPlanView;
import dev.countersign.executor.access.Caller;
import dev.countersign.executor.access.DecisionRule;
import dev.countersign.executor.access.Operation;
import dev.countersign.executor.db.TenantSessions;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.Ids;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/**
 * The caller's training plans, and committing one: the user makes one of their drafts their active plan, and the plan
 * active before is archived, in one transaction. A user action only: no action kind and no agent tool can do this. The
 * user's current plans are locked first, so two commits of the same user run one after the other (the last one wins);
 * the database allows at most one active plan per user whatever happens (a partial unique index): a plan activated
 * around the application in the same moment, which the lock cannot see, makes the commit fail with 409
 * {@code another_plan_active} and nothing changed.
 */
@Path("/api/actions/plans")
@Authenticated
public class TrainingPlanResource {

    private static final String NOT_FOUND = "You have no training plan with this id.";
    private static final String ONE_ACTIVE_PLAN_INDEX = "one_active_plan_per_user";

    private final TenantSessions sessions;
    private final TrainingPlanRepository plans;
    private final CurrentUser user;
    private final Caller caller;

    public TrainingPlanResource(TenantSessions sessions, TrainingPlanRepository plans, CurrentUser user,
            Caller caller) {
        this.caller = caller;
        this.sessions = sessions;
        this.plans = plans;
        this.user = user;
    }

    /**
     * The caller's drafts and their active plan (not archived ones), the active one first: what the decision page
     * offers to commit, and what a commit would archive.
     */
    @GET
    public Uni<List<TrainingPlanView>> plans() {
        String tenantId = user.tenantId();
        return sessions.read(tenantId, () -> plans.current(tenantId, user.userId()))
                .map(found -> found.stream().map(TrainingPlan::toView).toList());
    }

    /**
     * Commits the draft if it is still the version the caller read and the plan it archives is still the one they were
     * told of ({@link PlanCommitRequest}); otherwise 409 {@code plan_changed} and nothing changes.
     */
    @POST
    @Path("/{id}/commit")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<PlanCommitted> commit(@PathParam("id") String id, PlanCommitRequest request) {
        UUID planId = Ids.parseOrNotFound(id, ErrorCode.NOT_FOUND, NOT_FOUND);
        if (request == null || request.version() == null) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, "Send {\"version\": <the draft's version you read>,"
                    + " \"replaces\": <the id of the active plan it archives, or null>}.");
        }
        String tenantId = user.tenantId();
        String userId = user.userId();
        // Only the caller's own plans are found below (another person's is 404): the person whose plan it is commits
        // it, never a service principal (the decision rule; a plan has no tier).
        DecisionRule.require(caller.principal(), Operation.PLAN_COMMIT, Tier.LOW, userId, userId, caller.channel(),
                "commit this plan");
        return sessions.run(new Actor(tenantId, userId, TenantTransactions.HTTP), () -> plans
                .lockCurrent(tenantId, userId)
                .flatMap(locked -> current(planId, tenantId, userId).map(current -> {
                    // In this order: another user's plan is 404, a plan that is no draft 409, then what was read.
                    if (!"draft".equals(current.status)) {
                        throw new ProblemException(ErrorCode.INVALID_STATE_TRANSITION,
                                "Only a draft can be committed; this plan is %s.".formatted(current.status));
                    }
                    if (current.version != request.version().longValue()) {
                        throw new ProblemException(ErrorCode.PLAN_CHANGED, "This draft was revised after you read it;"
                                + " nothing changed. Read it again and commit again.");
                    }
                    UUID active = locked.stream().filter(plan -> "active".equals(plan.status)).map(plan -> plan.id)
                            .findFirst().orElse(null);
                    if (!Objects.equals(active, request.replaces())) {
                        throw new ProblemException(ErrorCode.PLAN_CHANGED, active == null
                                ? "You have no active plan any more; nothing changed. Reload your plans."
                                : "Your active plan is not the one you were shown; nothing changed. Reload your plans"
                                        + " and commit again.");
                    }
                    return active;
                }))
                .flatMap(
                        active -> (active == null ? Uni.createFrom().item(true) : plans.archiveActive(active, tenantId))
                                .flatMap(archived -> plans.activateDraft(planId, tenantId, userId))
                                .flatMap(activated -> {
                                    if (!activated) {
                                        // Cannot happen under the lock taken above; said rather than assumed.
                                        throw new ProblemException(ErrorCode.PLAN_CHANGED,
                                                "This draft changed while it was"
                                                        + " being committed; reload your plans and commit again.");
                                    }
                                    return plans.activatedAt(planId);
                                })
                                .map(activatedAt -> new PlanCommitted(planId, userId, activatedAt.toInstant(),
                                        active))))
                .onFailure(TrainingPlanResource::isAnotherActivePlan)
                .transform(failure -> new ProblemException(ErrorCode.ANOTHER_PLAN_ACTIVE, "Another of your plans became"
                        + " active while this one was being committed (you have one active plan at a time). Nothing"
                        + " changed: reload your plans and commit again."));
    }

    /** The database's last word on one active plan per user: its partial unique index. */
    private static boolean isAnotherActivePlan(Throwable failure) {
        // Hibernate Reactive reports the driver's error as Hibernate's, naming the violated constraint.
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConstraintViolationException violation) {
                return ONE_ACTIVE_PLAN_INDEX.equals(violation.getConstraintName());
            }
        }
        return false;
    }

    /** The plan if it is the caller's; 404 otherwise (another user's plan is simply absent). */
    private Uni<TrainingPlan> current(UUID planId, String tenantId, String userId) {
        return plans.findMine(planId, tenantId, userId).map(plan -> {
            if (plan == null) {
                throw new ProblemException(ErrorCode.NOT_FOUND, NOT_FOUND);
            }
            return plan;
        });
    }
}
