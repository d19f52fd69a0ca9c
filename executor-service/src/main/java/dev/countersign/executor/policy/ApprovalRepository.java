package dev.countersign.executor.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.api.ApprovalPolicy;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/** The tenant's approval rules for HIGH actions, and the approvals given so far (append-only). */
@ApplicationScoped
public class ApprovalRepository {

    public Uni<ApprovalPolicy> policy(SqlClient sql, String tenantId) {
        return sql.preparedQuery("SELECT high_approvals, high_needs_other_approver FROM tenant_policies"
                + " WHERE tenant_id = $1")
                .execute(Tuple.of(tenantId))
                .map(rows -> rows.size() == 0
                        ? ApprovalPolicy.DEFAULT
                        : new ApprovalPolicy(rows.iterator().next().getInteger("high_approvals"),
                                rows.iterator().next().getBoolean("high_needs_other_approver")));
    }

    public Uni<ApprovalPolicy> setPolicy(SqlClient sql, String tenantId, ApprovalPolicy policy, String userId) {
        return sql.preparedQuery("""
                INSERT INTO tenant_policies (tenant_id, updated_by, high_approvals, high_needs_other_approver)
                VALUES ($1, $2, $3, $4)
                ON CONFLICT (tenant_id) DO UPDATE SET updated_by = $2, updated_at = now(), high_approvals = $3,
                                                      high_needs_other_approver = $4""")
                .execute(Tuple.of(tenantId, userId, policy.highApprovals(), policy.highNeedsOtherApprover()))
                .replaceWith(policy);
    }

    /** Records an approval; approving twice counts once. */
    public Uni<Void> approve(SqlClient sql, UUID actionId, String tenantId, String approver, String channel) {
        return sql.preparedQuery("INSERT INTO action_approvals (action_id, tenant_id, approver, channel)"
                + " VALUES ($1, $2, $3, $4) ON CONFLICT (action_id, approver) DO NOTHING")
                .execute(Tuple.of(actionId, tenantId, approver, channel))
                .replaceWithVoid();
    }

    /** The approvers so far, in the order they approved. */
    public Uni<List<String>> approvers(SqlClient sql, UUID actionId, String tenantId) {
        return sql.preparedQuery("SELECT approver FROM action_approvals WHERE action_id = $1 AND tenant_id = $2"
                + " ORDER BY at, approver")
                .execute(Tuple.of(actionId, tenantId))
                .map(rows -> {
                    List<String> approvers = new ArrayList<>();
                    rows.forEach(row -> approvers.add(row.getString("approver")));
                    return approvers;
                });
    }
}
