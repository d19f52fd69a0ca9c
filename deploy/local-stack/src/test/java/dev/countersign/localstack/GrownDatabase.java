package dev.countersign.localstack;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Grows a benchmark's database by copies of what the service itself wrote: every executed action of the tenant is a
 * template, taken in turn, and each copy gets new ids and its template's rows in the tables the confirm path and
 * staging write (the action, its history, its ledger row, its outbox rows, its conversation-ledger rows, its
 * idempotency key) plus one processed-proposal record, all in the same tenant. Timestamps are the template's, except
 * the processed record's (now) and an unpublished outbox row's (marked published at its creation).
 * <p>
 * Limits: the copies are inserted as the superuser with triggers and foreign-key checks off
 * ({@code session_replication_role = replica}), so the state machine and the append-only guards do not judge them (they
 * copy rows those rules accepted once); payloads (outbox, conversation ledger) and the ledger row's description still
 * name the template's action; a template confirmed by event has no copy of its processed decision record. The tables
 * are vacuumed, analysed and checkpointed afterwards ({@link #settle}), as autovacuum and the checkpointer would in
 * time; a database that grew without that is not what this measures.
 */
final class GrownDatabase {

    /** Per table: the statement copying the templates' rows for every entry of {@code grow_map}. */
    private static final Map<String, String> COPIES = copies();
    private static final List<String> TABLES = List.copyOf(COPIES.keySet());
    /** The copies run on this many connections at once (the benchmark machine has 2 cores). */
    private static final int COPY_CONNECTIONS = 2;

    private GrownDatabase() {
    }

    /** What one growth did: rows added per table, and how long the copy and {@link #settle} took. */
    record Growth(Map<String, Long> rowsAdded, double copySeconds, double settleSeconds) {

        String describe() {
            return "%s; copied in %.0f s, VACUUM ANALYZE and CHECKPOINT %.0f s".formatted(rowsAdded, copySeconds,
                    settleSeconds);
        }
    }

    /**
     * Adds {@code actions} copies of the tenant's executed actions (the templates copied round by round until there are
     * as many copies as asked for).
     */
    static Growth grow(LocalStack stack, String tenant, int actions) throws SQLException, InterruptedException {
        Map<String, Long> added = new java.util.concurrent.ConcurrentHashMap<>();
        long started = System.nanoTime();
        try (Connection admin = stack.adminConnection(); Statement sql = admin.createStatement()) {
            // Templates numbered 0..n-1, copy i takes template i mod n. n is computed once (a scalar subquery), so the
            // join is an equality of one side's column with the other's expression: a hash join. Unlogged tables, not
            // temporary ones: the copies read them from two connections.
            try (var map = admin.prepareStatement("""
                    CREATE UNLOGGED TABLE grow_map AS
                    WITH templates AS (
                        SELECT id, row_number() OVER (ORDER BY id) - 1 AS n
                        FROM actions WHERE tenant_id = ? AND status = 'executed')
                    SELECT t.id AS old_id, gen_random_uuid() AS new_id
                    FROM generate_series(0, ? - 1) AS copy
                    JOIN templates t ON t.n = copy % (SELECT greatest(count(*), 1) FROM templates)""")) {
                map.setString(1, tenant);
                map.setInt(2, actions);
                map.execute();
            }
            sql.execute("CREATE INDEX ON grow_map (old_id)");
            sql.execute("""
                    CREATE UNLOGGED TABLE grow_events AS
                    SELECT o.event_id AS old_event, gen_random_uuid() AS new_event, m.new_id
                    FROM outbox o JOIN grow_map m ON o.message_key = m.old_id::text""");
            sql.execute("CREATE INDEX ON grow_events (old_event)");
            sql.execute("ANALYZE grow_map, grow_events");
            try {
                copyTables(stack, added);
            } finally {
                sql.execute("DROP TABLE grow_map, grow_events");
            }
            if (added.get("actions") != actions) {
                throw new IllegalStateException("grew by %d actions, not %d: the tenant has no executed action to copy"
                        .formatted(added.get("actions"), actions));
            }
            Map<String, Long> inOrder = new LinkedHashMap<>();
            TABLES.forEach(table -> inOrder.put(table, added.get(table)));
            double copySeconds = (System.nanoTime() - started) / 1e9;
            return new Growth(inOrder, copySeconds, settle(stack));
        }
    }

    /**
     * Runs the {@link #COPIES} on {@link #COPY_CONNECTIONS} connections at once, each taking the next table when it is
     * done with one (largest first: history, outbox and conversation rows are two or three per action). The tables have
     * no triggers or foreign-key checks to order them by while {@code session_replication_role = replica}.
     */
    private static void copyTables(LocalStack stack, Map<String, Long> added) throws InterruptedException {
        var tables = new java.util.concurrent.ConcurrentLinkedQueue<>(TABLES);
        var failures = new java.util.concurrent.CopyOnWriteArrayList<Exception>();
        List<Thread> copiers = new java.util.ArrayList<>();
        for (int c = 0; c < COPY_CONNECTIONS; c++) {
            Thread copier = new Thread(() -> {
                try (Connection admin = stack.adminConnection(); Statement sql = admin.createStatement()) {
                    sql.execute("SET session_replication_role = replica");
                    for (String table = tables.poll(); table != null; table = tables.poll()) {
                        added.put(table, (long) sql.executeUpdate(COPIES.get(table)));
                    }
                } catch (SQLException | RuntimeException e) {
                    failures.add(e);
                }
            }, "grow-copier-" + c);
            copiers.add(copier);
            copier.start();
        }
        for (Thread copier : copiers) {
            copier.join();
        }
        if (!failures.isEmpty()) {
            IllegalStateException failed = new IllegalStateException("a copy failed: " + failures.get(0),
                    failures.get(0));
            failures.stream().skip(1).forEach(failed::addSuppressed);
            throw failed;
        }
    }

    /**
     * Vacuums and analyses the tables the copies fill, then checkpoints, so that a run measured next meets neither dead
     * rows nor stale statistics nor a checkpoint still writing: call it before each of two runs to be compared. Answers
     * the seconds it took.
     */
    static double settle(LocalStack stack) throws SQLException {
        long started = System.nanoTime();
        try (Connection admin = stack.adminConnection(); Statement sql = admin.createStatement()) {
            for (String table : TABLES) {
                sql.execute("VACUUM (ANALYZE) " + table);
            }
            sql.execute("CHECKPOINT");
        }
        return (System.nanoTime() - started) / 1e9;
    }

    /**
     * Largest first (history rows are three per action, outbox and conversation rows two), so the copiers end together.
     */
    private static Map<String, String> copies() {
        Map<String, String> copies = new LinkedHashMap<>();
        copies.put("action_history", """
                INSERT INTO action_history
                SELECT r.* FROM action_history h JOIN grow_map m ON h.action_id = m.old_id
                CROSS JOIN LATERAL jsonb_populate_record(NULL::action_history, to_jsonb(h)
                        || jsonb_build_object('id', nextval(pg_get_serial_sequence('action_history', 'id')),
                                              'action_id', m.new_id)) r""");
        copies.put("outbox", """
                INSERT INTO outbox
                SELECT r.* FROM outbox o JOIN grow_events e ON o.event_id = e.old_event
                CROSS JOIN LATERAL jsonb_populate_record(NULL::outbox, to_jsonb(o)
                        || jsonb_build_object('id', nextval(pg_get_serial_sequence('outbox', 'id')),
                                              'event_id', e.new_event, 'message_key', e.new_id::text,
                                              'published_at', coalesce(o.published_at, o.created_at))) r""");
        copies.put("conversation_events", """
                INSERT INTO conversation_events OVERRIDING SYSTEM VALUE
                SELECT r.* FROM conversation_events c JOIN grow_events e ON c.event_id = e.old_event
                CROSS JOIN LATERAL jsonb_populate_record(NULL::conversation_events, to_jsonb(c)
                        || jsonb_build_object('position',
                                              nextval(pg_get_serial_sequence('conversation_events', 'position')),
                                              'event_id', e.new_event)) r""");
        copies.put("actions", """
                INSERT INTO actions
                SELECT r.* FROM actions a JOIN grow_map m ON a.id = m.old_id
                CROSS JOIN LATERAL jsonb_populate_record(NULL::actions,
                        to_jsonb(a) || jsonb_build_object('id', m.new_id)) r""");
        copies.put("transactions", """
                INSERT INTO transactions
                SELECT r.* FROM transactions t JOIN grow_map m ON t.source_action_id = m.old_id
                CROSS JOIN LATERAL jsonb_populate_record(NULL::transactions, to_jsonb(t)
                        || jsonb_build_object('id', gen_random_uuid(), 'source_action_id', m.new_id)) r""");
        copies.put("idempotency_keys", """
                INSERT INTO idempotency_keys
                SELECT r.* FROM idempotency_keys k JOIN grow_map m ON k.action_id = m.old_id
                CROSS JOIN LATERAL jsonb_populate_record(NULL::idempotency_keys, to_jsonb(k)
                        || jsonb_build_object('key', idempotency_key(m.new_id), 'action_id', m.new_id)) r""");
        copies.put("processed_events", """
                INSERT INTO processed_events (consumer, event_id, processed_at)
                SELECT 'executor.proposals', gen_random_uuid(), now() FROM grow_map""");
        return copies;
    }
}
