package dev.countersign.agent.plans;

import java.time.LocalDate;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.ledger.TenantReads;
import io.vertx.mutiny.sqlclient.Tuple;

/** Reads the user's training plans (active and drafts; archived ones are history), in the caller's tenant only. */
@ApplicationScoped
public class PlanReader {

    private final TenantReads reads;

    public PlanReader(TenantReads reads) {
        this.reads = reads;
    }

    /** The active plan first, then drafts, newest first; {@code status} null means both. */
    public List<Plan> plans(String tenantId, String userId, String status) {
        return reads.list(tenantId, """
                SELECT id, name, goal, status, starts_on, schedule, updated_at::text AS updated_at
                FROM training_plans
                WHERE tenant_id = $1 AND user_id = $2 AND status IN ('active', 'draft')
                  AND ($3::text IS NULL OR status = $3)
                ORDER BY status = 'active' DESC, updated_at DESC
                LIMIT 20""",
                Tuple.of(tenantId, userId, status),
                row -> new Plan(row.getUUID("id"), row.getString("name"), row.getString("goal"),
                        row.getString("status"), row.getLocalDate("starts_on"), row.getString("schedule")));
    }

    public record Plan(UUID id, String name, String goal, String status, LocalDate startsOn, String schedule) {
    }
}
