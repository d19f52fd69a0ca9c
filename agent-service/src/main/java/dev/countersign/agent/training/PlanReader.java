package dev.countersign.agent.training;

import java.time.LocalDate;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.ledger.OwnText;
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
                SELECT p.id, p.name, p.goal, p.status, p.starts_on, p.schedule, p.updated_at::text AS updated_at, %s
                    AS own_text
                FROM training_plans p
                WHERE p.tenant_id = $1 AND p.user_id = $2 AND p.status IN ('active', 'draft')
                  AND ($3::text IS NULL OR p.status = $3)
                ORDER BY p.status = 'active' DESC, p.updated_at DESC
                LIMIT 20""".formatted(OwnText.writtenBy("$2", "coalesce(p.text_action_id, p.source_action_id)",
                "p.tenant_id")),
                Tuple.of(tenantId, userId, status),
                row -> new Plan(row.getUUID("id"), row.getString("name"), row.getString("goal"),
                        row.getString("status"), row.getLocalDate("starts_on"), row.getString("schedule"),
                        row.getBoolean("own_text")));
    }

    /**
     * @param ownText
     *            whether the user's own clean turn wrote its name, goal and schedule ({@code OwnText})
     */
    public record Plan(UUID id, String name, String goal, String status, LocalDate startsOn, String schedule,
            boolean ownText) {
    }
}
