package dev.countersign.executor.kind;

import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.ErrorCode;
import io.vertx.mutiny.sqlclient.Row;

/**
 * Which action wrote each free-text column of a row before an action changed it, kept in that action's result
 * ({@code previousWriters}) so that its undo puts the writer back with the text. Without it an undone rename would
 * leave the undoing person's action as the writer of a colleague's name, and the agent would read that name as its
 * user's own (docs/security/auto-apply.md). A write names itself the writer of only the columns it writes (in its own
 * SQL, migration V25).
 */
public final class TextWriters {

    private static final String FIELD = "previousWriters";

    private TextWriters() {
    }

    /**
     * Records in {@code result} each of {@code columns}' writer before the write, read from the returned row's
     * {@code previous_<column>_writer} (null: the text came with the row).
     */
    public static void record(ObjectNode result, Row row, String... columns) {
        ObjectNode writers = result.putObject(FIELD);
        for (String column : columns) {
            UUID writer = row.getUUID("previous_" + column + "_writer");
            writers.put(column, writer == null ? null : writer.toString());
        }
    }

    /**
     * The writer of {@code column} before {@code executed} wrote; refuses to undo an action that ran before writers
     * were recorded (putting its text back under its own name would launder it).
     */
    public static UUID previous(KindAction executed, String column) {
        JsonNode writers = executed.result() == null ? null : executed.result().get(FIELD);
        if (writers == null || !writers.has(column)) {
            throw new ExecutionRefused(ErrorCode.NOT_UNDOABLE,
                    "this action ran before the writer of its text was recorded, so undo could not put it back");
        }
        return writers.get(column).isNull() ? null : UUID.fromString(writers.get(column).asText());
    }
}
