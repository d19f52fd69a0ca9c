package dev.countersign.executor.training;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.api.TrainingPlanView;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/** The SQL of a user's training plans, run in the caller's tenant transaction (row-level security applies). */
@ApplicationScoped
public class TrainingPlans {

    /** The user's drafts and active plan, the active one first, newest drafts next; at most 100. */
    Uni<List<TrainingPlanView>> current(SqlClient sql, String tenantId, String userId) {
        return sql.preparedQuery("""
                SELECT id, name, goal, starts_on, schedule, status, version FROM training_plans
                WHERE tenant_id = $1 AND user_id = $2 AND status IN ('draft', 'active')
                ORDER BY status = 'active' DESC, created_at DESC, id LIMIT 100""")
                .execute(Tuple.of(tenantId, userId))
                .map(rows -> {
                    List<TrainingPlanView> plans = new ArrayList<>();
                    rows.forEach(row -> plans.add(new TrainingPlanView(row.getUUID("id"), row.getString("name"),
                            row.getString("goal"), row.getLocalDate("starts_on"), row.getString("schedule"),
                            row.getString("status"), row.getLong("version"))));
                    return plans;
                });
    }

    /** Locks the user's drafts and active plan (id, status), so two commits of one user run one after the other. */
    Uni<RowSet<Row>> lockCurrent(SqlClient sql, String tenantId, String userId) {
        return sql.preparedQuery("""
                SELECT id, status FROM training_plans
                WHERE tenant_id = $1 AND user_id = $2 AND status IN ('draft', 'active')
                ORDER BY id FOR UPDATE""")
                .execute(Tuple.of(tenantId, userId));
    }

    /** The plan's status and version if it is the user's; no row otherwise. */
    Uni<RowSet<Row>> statusAndVersion(SqlClient sql, UUID planId, String tenantId, String userId) {
        return sql.preparedQuery("""
                SELECT status, version FROM training_plans WHERE id = $1 AND tenant_id = $2 AND user_id = $3""")
                .execute(Tuple.of(planId, tenantId, userId));
    }

    /** Archives the user's active plan; its id, or no row when there was none. */
    Uni<RowSet<Row>> archiveActive(SqlClient sql, String tenantId, String userId) {
        return sql.preparedQuery("""
                UPDATE training_plans SET status = 'archived', updated_at = now()
                WHERE tenant_id = $1 AND user_id = $2 AND status = 'active' RETURNING id""")
                .execute(Tuple.of(tenantId, userId));
    }

    /** Activates the user's draft (compare-and-swap on status 'draft'); its activation time, or no row. */
    Uni<RowSet<Row>> activateDraft(SqlClient sql, UUID planId, String tenantId, String userId) {
        return sql.preparedQuery("""
                UPDATE training_plans SET status = 'active', activated_by = $3, activated_at = now(),
                       updated_at = now()
                WHERE id = $1 AND tenant_id = $2 AND user_id = $3 AND status = 'draft'
                RETURNING activated_at""")
                .execute(Tuple.of(planId, tenantId, userId));
    }
}
