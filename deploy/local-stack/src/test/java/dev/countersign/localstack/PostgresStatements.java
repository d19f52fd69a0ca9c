package dev.countersign.localstack;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import dev.countersign.devsupport.LocalPostgres;

/**
 * Where PostgreSQL's time went during a benchmark's measured part, from pg_stat_statements: only when the benchmark
 * runs with {@code -Dbench.statements=true} ({@link LocalPostgres#STATEMENT_STATISTICS}), which makes the stack's
 * embedded server load it. Statements run by triggers and functions are counted on their own lines as well as inside
 * the statement that fired them, so the lines do not add up to the total. The times are the extension's execution
 * times: wall-clock time inside the server, which under load includes waiting for a core and for locks, not CPU time.
 * Planning time is not counted (the extension's default).
 */
final class PostgresStatements {

    private PostgresStatements() {
    }

    static boolean enabled() {
        return Boolean.getBoolean(LocalPostgres.STATEMENT_STATISTICS);
    }

    /** Starts counting from zero (creates the extension's view on first use). */
    static void reset(LocalStack stack) throws SQLException {
        if (!enabled()) {
            return;
        }
        try (Connection admin = stack.adminConnection(); Statement sql = admin.createStatement()) {
            sql.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            sql.execute("SELECT pg_stat_statements_reset()");
        }
    }

    /**
     * The {@code limit} statements with the most execution time since {@link #reset}, one line each: calls, time per
     * call, time per {@code unit} of work ({@code units} of them done meanwhile), and the statement's first words.
     * Empty unless enabled.
     */
    static List<String> top(LocalStack stack, int limit, long units, String unit) throws SQLException {
        List<String> lines = new ArrayList<>();
        if (!enabled()) {
            return lines;
        }
        lines.add("PostgreSQL statements (pg_stat_statements, nested ones too, by execution time; ms per call, ms per "
                + unit + " over " + units + "):");
        try (Connection admin = stack.adminConnection();
                var query = admin.prepareStatement("SELECT calls, total_exec_time, regexp_replace(query, '\\s+', ' ',"
                        + " 'g') FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'"
                        + " ORDER BY total_exec_time DESC LIMIT ?")) {
            query.setInt(1, limit);
            try (var rows = query.executeQuery()) {
                while (rows.next()) {
                    long calls = rows.getLong(1);
                    double total = rows.getDouble(2);
                    String text = rows.getString(3);
                    lines.add("  %8d calls %7.3f ms/call %7.3f ms/%s  %s".formatted(calls, total / calls,
                            total / Math.max(1, units), unit, text.length() > 110
                                    ? text.substring(0, 110) + "..."
                                    : text));
                }
            }
        }
        return lines;
    }
}
