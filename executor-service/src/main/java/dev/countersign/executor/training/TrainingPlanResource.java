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

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.PlanCommitRequest;
import dev.countersign.contracts.api.PlanCommitted;
import dev.countersign.contracts.api.TrainingPlanView;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.Ids;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.pgclient.PgException;

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

    private final TenantTransactions transactions;
    private final TrainingPlans plans;
    private final CurrentUser user;

    public TrainingPlanResource(TenantTransactions transactions, TrainingPlans plans, CurrentUser user) {
        this.transactions = transactions;
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
        return transactions.read(tenantId, sql -> plans.current(sql, tenantId, user.userId()));
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
        return transactions.run(new Actor(tenantId, userId, TenantTransactions.HTTP), sql -> plans
                .lockCurrent(sql, tenantId, userId)
                .flatMap(locked -> current(sql, planId, tenantId, userId).map(current -> {
                    // In this order: another user's plan is 404, a plan that is no draft 409, then what was read.
                    String status = current.getString("status");
                    if (!"draft".equals(status)) {
                        throw new ProblemException(ErrorCode.INVALID_STATE_TRANSITION,
                                "Only a draft can be committed; this plan is %s.".formatted(status));
                    }
                    if (current.getLong("version") != request.version().longValue()) {
                        throw new ProblemException(ErrorCode.PLAN_CHANGED, "This draft was revised after you read it;"
                                + " nothing changed. Read it again and commit again.");
                    }
                    UUID active = null;
                    for (Row row : locked) {
                        if ("active".equals(row.getString("status"))) {
                            active = row.getUUID("id");
                        }
                    }
                    if (!Objects.equals(active, request.replaces())) {
                        throw new ProblemException(ErrorCode.PLAN_CHANGED, active == null
                                ? "You have no active plan any more; nothing changed. Reload your plans."
                                : "Your active plan is not the one you were shown; nothing changed. Reload your plans"
                                        + " and commit again.");
                    }
                    return current;
                }))
                .flatMap(checked -> plans.archiveActive(sql, tenantId, userId))
                .flatMap(archived -> plans.activateDraft(sql, planId, tenantId, userId)
                        .map(activated -> new PlanCommitted(planId, userId,
                                activated.iterator().next().getOffsetDateTime("activated_at").toInstant(),
                                archived.size() == 0 ? null : archived.iterator().next().getUUID("id")))))
                .onFailure(TrainingPlanResource::isAnotherActivePlan)
                .transform(failure -> new ProblemException(ErrorCode.ANOTHER_PLAN_ACTIVE, "Another of your plans became"
                        + " active while this one was being committed (you have one active plan at a time). Nothing"
                        + " changed: reload your plans and commit again."));
    }

    /** The database's last word on one active plan per user: its partial unique index. */
    private static boolean isAnotherActivePlan(Throwable failure) {
        return failure instanceof PgException pg && "23505".equals(pg.getSqlState())
                && ONE_ACTIVE_PLAN_INDEX.equals(pg.getConstraint());
    }

    /** The plan's status and version if it is the caller's; 404 otherwise (another user's plan is simply absent). */
    private Uni<Row> current(SqlClient sql, UUID planId, String tenantId, String userId) {
        return plans.statusAndVersion(sql, planId, tenantId, userId)
                .map(rows -> {
                    if (rows.size() == 0) {
                        throw new ProblemException(ErrorCode.NOT_FOUND, NOT_FOUND);
                    }
                    return rows.iterator().next();
                });
    }
}
