package dev.countersign.executor.kind;

import dev.countersign.contracts.ErrorCode;

/**
 * A write guarded by the staged version (and the tenant, and the requester where the row must be theirs) matched no row
 * ({@code kind_target_moved()} in a kind's write function). The gate reads the target again to say why:
 * {@code target_not_found} if it is gone, {@code target_changed} if it moved on since the action was staged.
 */
public final class TargetMoved extends ExecutionRefused {

    public TargetMoved(String reason) {
        super(ErrorCode.TARGET_CHANGED, reason);
    }
}
