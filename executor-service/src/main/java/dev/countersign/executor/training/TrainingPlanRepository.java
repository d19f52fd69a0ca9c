package dev.countersign.executor.training;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Parameters;
import io.smallrye.mutiny.Uni;

/**
 * A user's training plans, in the caller's tenant session ({@code TenantSessions}; row-level security applies). Every
 * status move is a compare-and-swap named for its transition: its WHERE names the status it expects, and it answers
 * whether it won (one row updated); a loser changed nothing.
 */
@ApplicationScoped
public class TrainingPlanRepository implements PanacheRepositoryBase<TrainingPlan, UUID> {

    private static final String MINE = "tenantId = :tenant and userId = :user and status in ('draft', 'active')";

    /** The user's drafts and active plan, the active one first, newest drafts next; at most 100. */
    public Uni<List<TrainingPlan>> current(String tenantId, String userId) {
        return find(MINE + " order by case when status = 'active' then 0 else 1 end, createdAt desc, id",
                mine(tenantId, userId)).page(0, 100).list();
    }

    /** Locks the user's drafts and active plan, so two commits of one user run one after the other. */
    public Uni<List<TrainingPlan>> lockCurrent(String tenantId, String userId) {
        return find(MINE + " order by id", mine(tenantId, userId)).withLock(LockModeType.PESSIMISTIC_WRITE).list();
    }

    /** The plan if it is the user's; null otherwise. */
    public Uni<TrainingPlan> findMine(UUID planId, String tenantId, String userId) {
        return find("id = :id and tenantId = :tenant and userId = :user",
                mine(tenantId, userId).and("id", planId)).firstResult();
    }

    /** active -> archived; whether this call won. */
    public Uni<Boolean> archiveActive(UUID planId, String tenantId) {
        return update("status = 'archived', updatedAt = offset datetime"
                + " where id = ?1 and tenantId = ?2 and status = 'active'", planId, tenantId).map(won -> won == 1);
    }

    /** draft -> active, activated by its own user; whether this call won. */
    public Uni<Boolean> activateDraft(UUID planId, String tenantId, String userId) {
        return update("status = 'active', activatedBy = :user, activatedAt = offset datetime,"
                + " updatedAt = offset datetime where id = :id and tenantId = :tenant and userId = :user"
                + " and status = 'draft'", mine(tenantId, userId).and("id", planId)).map(won -> won == 1);
    }

    /** When the plan was activated, as stored now (not the session's copy, which a bulk update leaves alone). */
    public Uni<OffsetDateTime> activatedAt(UUID planId) {
        return getSession().flatMap(session -> session
                .createSelectionQuery("select activatedAt from TrainingPlan where id = ?1", OffsetDateTime.class)
                .setParameter(1, planId).getSingleResult());
    }

    private static Parameters mine(String tenantId, String userId) {
        return Parameters.with("tenant", tenantId).and("user", userId);
    }
}
