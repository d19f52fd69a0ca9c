package dev.countersign.devsupport.testing;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The text of {@code deploy/bench/confirm-baseline.sql}: the executor's own statements for a person's confirm of a LOW
 * ledger expense as they were when issue 41 started, one by one ({@code -- statement: name} before each), and the same
 * work as one PL/pgSQL function (after {@code -- function:}). Frozen (its hash is held by executor-service's
 * {@code ConfirmBaselineSqlTest}, which runs the function); the confirm benchmark runs both. Read here, for both.
 *
 * @param statements
 *            each statement by name, in the file's order, without its {@code ;}
 * @param function
 *            the {@code CREATE FUNCTION bench_confirm} statement
 */
public record ConfirmBaselineFile(Map<String, String> statements, String function) {

    private static final String STATEMENT = "-- statement: ";
    private static final String FUNCTION = "-- function:";

    /** The file's parts, read from its {@code text}. */
    public static ConfirmBaselineFile parse(String text) {
        int function = text.indexOf(FUNCTION);
        if (function < 0) {
            throw new IllegalStateException("confirm-baseline.sql has no one-round-trip function");
        }
        Map<String, String> statements = new LinkedHashMap<>();
        int at = text.indexOf(STATEMENT);
        while (at >= 0 && at < function) {
            int nameEnd = text.indexOf('\n', at);
            int next = text.indexOf(STATEMENT, nameEnd);
            int end = next < 0 || next > function ? function : next;
            String sql = text.substring(nameEnd + 1, end).strip();
            statements.put(text.substring(at + STATEMENT.length(), nameEnd).strip(),
                    sql.substring(0, sql.length() - 1)); // without its ';'
            at = next < 0 || next > function ? -1 : next;
        }
        return new ConfirmBaselineFile(statements, text.substring(text.indexOf('\n', function) + 1).strip());
    }

    /** The statement {@code name}; fails if the file has none of that name. */
    public String statement(String name) {
        String sql = statements.get(name);
        if (sql == null) {
            throw new IllegalStateException("confirm-baseline.sql has no statement " + name);
        }
        return sql;
    }
}
