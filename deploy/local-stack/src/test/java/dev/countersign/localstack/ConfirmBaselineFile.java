package dev.countersign.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code deploy/bench/confirm-baseline.sql}: the executor's own statements for a person's confirm of a LOW ledger
 * expense as they were when issue 41 started, one by one, and the same work as one PL/pgSQL function. Frozen (its hash
 * is held by executor-service's {@code ConfirmBaselineSqlTest}); this class only reads it.
 */
record ConfirmBaselineFile(Map<String, String> statements, String function) {

    private static final String STATEMENT = "-- statement: ";
    private static final String FUNCTION = "-- function:";

    static ConfirmBaselineFile read() {
        Path root = TestStacks.repositoryRoot();
        String text;
        try {
            text = Files.readString(root.resolve("deploy/bench/confirm-baseline.sql"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> statements = new LinkedHashMap<>();
        int at = text.indexOf(STATEMENT);
        int function = text.indexOf(FUNCTION);
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

    String statement(String name) {
        String sql = statements.get(name);
        if (sql == null) {
            throw new IllegalStateException("confirm-baseline.sql has no statement " + name);
        }
        return sql;
    }
}
