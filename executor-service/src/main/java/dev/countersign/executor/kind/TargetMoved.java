package dev.countersign.executor.kind;

import dev.countersign.contracts.ErrorCode;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;

/**
 * A write guarded by the staged version (and the tenant, and the requester where the row must be theirs) matched no
 * row. The gate reads the target again to say why: {@code target_not_found} if it is gone, {@code target_changed} if it
 * moved on since the action was staged.
 */
public final class TargetMoved extends ExecutionRefused {

    private TargetMoved() {
        super(ErrorCode.TARGET_CHANGED, "the target changed since the action was staged, or is gone");
    }

    /** The rows of a guarded write; fails with {@link TargetMoved} if it matched none. */
    public static RowSet<Row> unlessNoneMatched(RowSet<Row> rows) {
        if (rows.rowCount() == 0) {
            throw new TargetMoved();
        }
        return rows;
    }
}
