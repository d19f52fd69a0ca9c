package dev.countersign.executor.access;

import java.util.Locale;

/** What a principal asks to do to an action or an imported row (docs/security/authorization.md, the table). */
public enum Operation {

    CONFIRM, BATCH_CONFIRM, CANCEL, UNDO, RESOLVE, REISSUE_TOKEN, IMPORT_CONFIRM, IMPORT_REJECT, PLAN_COMMIT,

    /** See an action or imported row at all: its parameters, result, target snapshot, history and approvers. */
    READ;

    /** As the table names it: {@code batch-confirm}. */
    public String tableName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
