package dev.countersign.executor.kind;

import dev.countersign.contracts.ErrorCode;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * A database kind whose write can be put back. The inverse lives next to the write, in the same class, so the two
 * change together. Each such kind records the target row's version after its write in the result ({@code version});
 * undo writes only while the row still has that version, so nothing that happened to the row since is overwritten.
 */
public interface Undoable {

    /**
     * Puts back what {@code executed} wrote, in the caller's transaction.
     *
     * @throws ExecutionRefused
     *             ({@code target_changed}) if the row moved on since the action wrote it, or is gone
     */
    Uni<Void> undo(SqlClient sql, KindAction executed);

    /** The target's version right after the action wrote it; refuses actions that ran before versions were recorded. */
    static long writtenVersion(KindAction executed) {
        if (executed.result() == null || !executed.result().hasNonNull("version")) {
            throw new ExecutionRefused(ErrorCode.NOT_UNDOABLE,
                    "this action ran before undo was possible (no version recorded)");
        }
        return executed.result().get("version").asLong();
    }

    /** The refusal when the guarded inverse matched no row. */
    static ExecutionRefused changedSince(String noun) {
        return new ExecutionRefused(ErrorCode.TARGET_CHANGED,
                "the %s changed since this action ran, or is gone; undo refused so that later change is kept"
                        .formatted(noun));
    }
}
