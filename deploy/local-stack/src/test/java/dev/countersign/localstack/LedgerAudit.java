package dev.countersign.localstack;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What the database says about a tenant after a fault, read as the schema owner around the services: every way an
 * action could have been executed twice, lost its outcome, or moved the ledger by something no action says. Each check
 * answers the offending rows (empty: none), so a failure names them.
 */
final class LedgerAudit {

    private final LocalStack stack;
    private final String tenant;

    LedgerAudit(LocalStack stack, String tenant) {
        this.stack = stack;
        this.tenant = tenant;
    }

    /** Actions whose history holds more than one move to {@code executed}. */
    List<String> executedTwice() throws SQLException {
        return rows("SELECT action_id || ' x' || count(*) FROM action_history WHERE tenant_id = ?"
                + " AND to_status = 'executed' GROUP BY action_id HAVING count(*) > 1");
    }

    /** Executed actions without exactly one {@code ActionExecuted} event id in the outbox. */
    List<String> executedWithoutOneOutcome() throws SQLException {
        return rows("""
                SELECT a.id || ' has ' || (SELECT count(DISTINCT o.event_id) FROM outbox o
                                           WHERE o.message_key = a.id::text AND o.payload LIKE '%"ActionExecuted"%')
                FROM actions a WHERE a.tenant_id = ? AND a.status IN ('executed', 'undone')
                  AND (SELECT count(DISTINCT o.event_id) FROM outbox o
                       WHERE o.message_key = a.id::text AND o.payload LIKE '%"ActionExecuted"%') <> 1""");
    }

    /** Outbox events the relay has not published (after recovery there must be none). */
    List<String> unpublished() throws SQLException {
        return rows("SELECT message_key || ' ' || left(payload, 60) FROM outbox WHERE tenant_id = ?"
                + " AND published_at IS NULL");
    }

    /** Ledger rows whose action is not executed (or that no action wrote), and executed creates without their row. */
    List<String> ledgerAgainstActions() throws SQLException {
        List<String> wrong = new ArrayList<>(rows("""
                SELECT t.id || ' from ' || coalesce(t.source_action_id::text, 'no action') FROM transactions t
                LEFT JOIN actions a ON a.id = t.source_action_id
                WHERE t.tenant_id = ? AND (a.id IS NULL OR a.status <> 'executed')"""));
        wrong.addAll(rows("""
                SELECT a.id || ' executed without its ledger row' FROM actions a
                WHERE a.tenant_id = ? AND a.status = 'executed' AND a.kind = 'ledger.transaction.create'
                  AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.source_action_id = a.id)"""));
        return wrong;
    }

    /** The sum of the tenant's ledger. */
    BigDecimal ledgerSum() throws SQLException {
        return new BigDecimal(rows("SELECT coalesce(sum(amount), 0)::text FROM transactions WHERE tenant_id = ?")
                .get(0));
    }

    /** The sum of the amounts of the tenant's executed expense actions. */
    BigDecimal executedSum() throws SQLException {
        return new BigDecimal(rows("SELECT coalesce(sum((params->>'amount')::numeric), 0)::text FROM actions"
                + " WHERE tenant_id = ? AND status = 'executed' AND kind = 'ledger.transaction.create'").get(0));
    }

    /** The action's status, or null when it is not stored. */
    String status(String actionId) throws SQLException {
        try (Connection owner = stack.ownerConnection();
                var query = owner.prepareStatement("SELECT status FROM actions WHERE id = ?::uuid")) {
            query.setString(1, actionId);
            try (var rows = query.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    /** The ids of the tenant's stored actions. */
    List<String> actionIds() throws SQLException {
        return rows("SELECT id::text FROM actions WHERE tenant_id = ? ORDER BY proposed_at");
    }

    /** How many actions of the tenant are stored. */
    int actions() throws SQLException {
        return Integer.parseInt(rows("SELECT count(*)::text FROM actions WHERE tenant_id = ?").get(0));
    }

    private List<String> rows(String sql) throws SQLException {
        try (Connection owner = stack.ownerConnection(); var query = owner.prepareStatement(sql)) {
            for (int i = 1; i <= query.getParameterMetaData().getParameterCount(); i++) {
                query.setString(i, tenant);
            }
            List<String> found = new ArrayList<>();
            try (var rows = query.executeQuery()) {
                while (rows.next()) {
                    found.add(rows.getString(1));
                }
            }
            return found;
        }
    }
}
