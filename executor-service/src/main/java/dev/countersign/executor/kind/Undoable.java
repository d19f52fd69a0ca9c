package dev.countersign.executor.kind;

/**
 * A database kind whose write can be put back. Its inverse is a SQL function in the kind's own repeatable migration,
 * next to its write function, so the two change together, named by {@link #undoFunction()}; the gate calls it through
 * {@code undo_action} (R__execute_action.sql) in the undo's transaction, then marks the action undone.
 * <p>
 * The function's contract: {@code (p_action uuid, p_tenant text, p_params jsonb, p_result jsonb,
 * p_target_before jsonb) RETURNS void}: the action's id, tenant and parameters, what its write answered and the
 * target's fields as staged (what the person saw). Each such kind records the target row's version after its write in
 * the result ({@code version}, read with {@code kind_written_version(p_result)}); the undo writes only while the row
 * still has that version, so nothing that happened to the row since is overwritten, and refuses otherwise with
 * {@code kind_changed_since(noun)} ({@code target_changed}); a text's writer before the write is read with
 * {@code kind_previous_writer(p_result, column)}. Each refuses an action that ran before it was recorded
 * ({@code not_undoable}).
 */
public interface Undoable {

    /** The argument types of every undo function, in order. */
    String UNDO_ARGUMENTS = "(uuid, text, jsonb, jsonb, jsonb)";

    /** The undo function's name, a plain SQL identifier like the write function's. */
    String undoFunction();

    /** The undo function as PostgreSQL names one function: its name and argument types. */
    default String undoProcedure() {
        return undoFunction() + UNDO_ARGUMENTS;
    }
}
