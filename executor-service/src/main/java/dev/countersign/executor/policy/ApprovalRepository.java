package dev.countersign.executor.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/** The approvals given so far to HIGH actions (append-only); the rules live in {@link TenantPolicyRepository}. */
@ApplicationScoped
public class ApprovalRepository {

    /** Records an approval; approving twice counts once. */
    public Uni<Void> approve(SqlClient sql, UUID actionId, String tenantId, String approver, String channel) {
        return sql.preparedQuery("INSERT INTO action_approvals (action_id, tenant_id, approver, channel)"
                + " VALUES ($1, $2, $3, $4) ON CONFLICT (action_id, approver) DO NOTHING")
                .execute(Tuple.of(actionId, tenantId, approver, channel))
                .replaceWithVoid();
    }

    /** The approvers so far, in the order they approved. */
    public Uni<List<String>> approvers(SqlClient sql, UUID actionId, String tenantId) {
        return sql.preparedQuery("SELECT approver FROM action_approvals WHERE action_id = $1 AND current_tenant() = $2"
                + " ORDER BY at, approver")
                .execute(Tuple.of(actionId, tenantId))
                .map(rows -> {
                    List<String> approvers = new ArrayList<>();
                    rows.forEach(row -> approvers.add(row.getString("approver")));
                    return approvers;
                });
    }
}
