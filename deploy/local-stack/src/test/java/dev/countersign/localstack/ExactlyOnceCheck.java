package dev.countersign.localstack;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * After a load has settled: the database, read as its owner around the services in one snapshot, held against what the
 * clients were told about each action ({@link SoakMix.Known}). Per action, by the status the answers imply:
 * <ul>
 * <li>every acknowledged proposal is an action of the tenant, or has an {@code ActionRejected} in the outbox; the
 * tenant has no action nobody proposed;</li>
 * <li>its status is the one the answers imply (a 200 confirm: executed; a 200 undo: undone; a 200 cancel: cancelled;
 * else still proposed);</li>
 * <li>executed: one ledger row ({@code transactions.source_action_id}), live; one {@code executed} history entry; one
 * {@code ActionExecuted} in the outbox;</li>
 * <li>undone (UndoService and {@code CreateTransactionKind.undo}: the row is kept and marked deleted by the action):
 * the same one row, now with {@code deleted_at} and {@code deleted_by_action} the action; one {@code executed} and one
 * {@code undone} history entry; one {@code ActionExecuted} and one {@code ActionUndone};</li>
 * <li>cancelled: no ledger row, no {@code executed} entry or event, one {@code ActionCancelled};</li>
 * <li>still proposed: nothing written, nothing executed;</li>
 * <li>the wallet's balance (its live rows) is the sum of the amounts of the actions executed and not undone, as the
 * clients proposed them.</li>
 * </ul>
 * The outbox is checked, not the outcomes topic: the relay may publish an event twice (at-least-once,
 * docs/guarantees.md, "How exactly-once holds"); TwoExecutorsLoadIT covers the topic.
 */
final class ExactlyOnceCheck {

    /** What the check found: the violations (empty when it holds) and a summary for the report. */
    record Findings(List<String> violations, Map<String, Integer> statuses, int rejected, BigDecimal balance,
            BigDecimal expectedBalance) {
    }

    /** How many of each of an action's traces the database holds. */
    private static final class Traces {

        String status;
        int ledgerRows;
        int liveLedgerRows;
        int rowsDeletedByIt;
        final Map<String, Integer> history = new HashMap<>();
        final Map<String, Integer> events = new HashMap<>();
    }

    private ExactlyOnceCheck() {
    }

    static Findings check(Connection owner, String tenant, UUID wallet, Map<UUID, SoakMix.Known> known)
            throws SQLException {
        owner.setAutoCommit(false);
        owner.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try {
            return check(owner, tenant, wallet, known, read(owner, tenant));
        } finally {
            owner.rollback();
            owner.setAutoCommit(true);
        }
    }

    private static Map<UUID, Traces> read(Connection owner, String tenant) throws SQLException {
        Map<UUID, Traces> traces = new HashMap<>();
        query(owner, "SELECT id, status FROM actions WHERE tenant_id = ?", tenant,
                row -> traces(traces, row.getObject(1, UUID.class)).status = row.getString(2));
        query(owner, "SELECT source_action_id, count(*), count(*) FILTER (WHERE deleted_at IS NULL),"
                + " count(*) FILTER (WHERE deleted_by_action = source_action_id)"
                + " FROM transactions WHERE tenant_id = ? AND source_action_id IS NOT NULL GROUP BY 1", tenant, row -> {
                    Traces action = traces(traces, row.getObject(1, UUID.class));
                    action.ledgerRows = row.getInt(2);
                    action.liveLedgerRows = row.getInt(3);
                    action.rowsDeletedByIt = row.getInt(4);
                });
        query(owner, "SELECT action_id, to_status, count(*) FROM action_history WHERE tenant_id = ? GROUP BY 1, 2",
                tenant, row -> traces(traces, row.getObject(1, UUID.class)).history.put(row.getString(2),
                        row.getInt(3)));
        query(owner, "SELECT message_key, payload::jsonb ->> 'type', count(*) FROM outbox WHERE tenant_id = ?"
                + " GROUP BY 1, 2", tenant,
                row -> traces(traces, UUID.fromString(row.getString(1))).events
                        .put(row.getString(2), row.getInt(3)));
        return traces;
    }

    private static Findings check(Connection owner, String tenant, UUID wallet, Map<UUID, SoakMix.Known> known,
            Map<UUID, Traces> traces) throws SQLException {
        List<String> violations = new ArrayList<>();
        Map<String, Integer> statuses = new TreeMap<>();
        int rejected = 0;
        BigDecimal expectedBalance = BigDecimal.ZERO;
        for (SoakMix.Known action : known.values()) {
            Traces found = traces.getOrDefault(action.id, new Traces());
            String expected = action.expectedStatus();
            if (found.status == null) {
                if (found.events.getOrDefault("ActionRejected", 0) == 1) {
                    rejected++;
                    statuses.merge("rejected", 1, Integer::sum);
                } else {
                    violations.add("lost: %s proposal %s (answers imply %s) is neither an action nor rejected"
                            .formatted(action.source, action.id, expected));
                }
                continue;
            }
            statuses.merge(found.status, 1, Integer::sum);
            if (action.confirmed && action.cancelled) {
                violations.add("both a confirm and a cancel of %s were answered 200".formatted(action.id));
            }
            if (!found.status.equals(expected)) {
                violations.add("%s is %s, the answers imply %s".formatted(action.id, found.status, expected));
                continue;
            }
            boolean wrote = expected.equals("executed") || expected.equals("undone");
            expect(violations, action, "ledger rows", found.ledgerRows, wrote ? 1 : 0);
            expect(violations, action, "live ledger rows", found.liveLedgerRows, expected.equals("executed") ? 1 : 0);
            expect(violations, action, "ledger rows deleted by its undo", found.rowsDeletedByIt,
                    expected.equals("undone") ? 1 : 0);
            expect(violations, action, "'executed' history entries", found.history.getOrDefault("executed", 0),
                    wrote ? 1 : 0);
            expect(violations, action, "ActionExecuted in the outbox", found.events.getOrDefault("ActionExecuted", 0),
                    wrote ? 1 : 0);
            expect(violations, action, "'undone' history entries", found.history.getOrDefault("undone", 0),
                    expected.equals("undone") ? 1 : 0);
            expect(violations, action, "ActionUndone in the outbox", found.events.getOrDefault("ActionUndone", 0),
                    expected.equals("undone") ? 1 : 0);
            expect(violations, action, "ActionCancelled in the outbox",
                    found.events.getOrDefault("ActionCancelled", 0), expected.equals("cancelled") ? 1 : 0);
            if (expected.equals("executed")) {
                expectedBalance = expectedBalance.add(action.amount);
            }
        }
        Set<UUID> strangers = new HashSet<>();
        traces.forEach((id, found) -> {
            if (found.status != null && !known.containsKey(id)) {
                strangers.add(id);
            }
        });
        if (!strangers.isEmpty()) {
            violations.add("actions of the tenant no client proposed: " + strangers);
        }
        BigDecimal balance = balance(owner, tenant, wallet);
        if (balance.compareTo(expectedBalance) != 0) {
            violations.add("wallet balance %s, the actions executed and not undone sum to %s".formatted(balance,
                    expectedBalance));
        }
        return new Findings(violations, statuses, rejected, balance, expectedBalance);
    }

    private static void expect(List<String> violations, SoakMix.Known action, String what, int found, int expected) {
        if (found != expected) {
            violations.add("%s (%s): %d %s, expected %d".formatted(action.id, action.expectedStatus(), found, what,
                    expected));
        }
    }

    private static BigDecimal balance(Connection owner, String tenant, UUID wallet) throws SQLException {
        try (var query = owner.prepareStatement("SELECT coalesce(sum(amount), 0) FROM transactions"
                + " WHERE tenant_id = ? AND wallet_id = ? AND deleted_at IS NULL")) {
            query.setString(1, tenant);
            query.setObject(2, wallet);
            try (var rows = query.executeQuery()) {
                rows.next();
                return rows.getBigDecimal(1);
            }
        }
    }

    private static Traces traces(Map<UUID, Traces> traces, UUID id) {
        return traces.computeIfAbsent(id, ignored -> new Traces());
    }

    @FunctionalInterface
    private interface Row {

        void read(ResultSet row) throws SQLException;
    }

    private static void query(Connection owner, String sql, String tenant, Row row) throws SQLException {
        try (var query = owner.prepareStatement(sql)) {
            query.setString(1, tenant);
            try (var rows = query.executeQuery()) {
                while (rows.next()) {
                    row.read(rows);
                }
            }
        }
    }
}
