package dev.countersign.executor.execution;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.executor.access.Principal;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * How many persons an undo needs, and who asked so far: as many as the distinct verified approvers that let the action
 * run (table {@code action_approvals}; the one unverified integration approver not counted), at least one. Each
 * person's ask is recorded ({@code undo_approvals}, V29), in the undo's transaction.
 */
@ApplicationScoped
public class UndoApprovals {

    /** The distinct verified approvers of {@code actionId}, at least 1. */
    public Uni<Integer> required(SqlClient sql, UUID actionId, String tenantId) {
        return sql.preparedQuery("SELECT count(DISTINCT approver) FROM action_approvals"
                + " WHERE action_id = $1 AND current_tenant() = $2 AND approver <> $3")
                .execute(Tuple.of(actionId, tenantId, Principal.UNVERIFIED_INTEGRATION))
                .map(rows -> (int) Math.max(1L, rows.iterator().next().getLong(0)));
    }

    /** Records {@code approver}'s undo (twice counts once); answers everyone who asked so far, in order. */
    public Uni<List<String>> ask(SqlClient sql, UUID actionId, String tenantId, String approver) {
        return sql.preparedQuery("INSERT INTO undo_approvals (action_id, tenant_id, approver) VALUES ($1, $2, $3)"
                + " ON CONFLICT (action_id, approver) DO NOTHING")
                .execute(Tuple.of(actionId, tenantId, approver))
                .flatMap(inserted -> sql.preparedQuery("SELECT approver FROM undo_approvals"
                        + " WHERE action_id = $1 AND current_tenant() = $2 ORDER BY at, approver")
                        .execute(Tuple.of(actionId, tenantId)))
                .map(rows -> {
                    List<String> asked = new ArrayList<>();
                    rows.forEach(row -> asked.add(row.getString("approver")));
                    return asked;
                });
    }
}
