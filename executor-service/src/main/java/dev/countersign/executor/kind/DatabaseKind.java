package dev.countersign.executor.kind;

/**
 * A kind written in this database, inside the confirming transaction (so the write and the action's move commit
 * together, or neither). Its write is a SQL function in the kind's own repeatable migration
 * ({@code db/migration/kinds/<kind path>/R__kind_<kind>.sql}), named by {@link #writeFunction()}; the gate calls it in
 * the same statement that marks the action executed and appends its outcome ({@code R__execute_action.sql}).
 * <p>
 * The function's contract: {@code (p_action uuid, p_tenant text, p_requester text, p_params jsonb,
 * p_target_version bigint) RETURNS jsonb}. It reads its input from these arguments only (the stored action as the
 * person approved it: its parameters in the catalogue's normal form, the target's version as staged, null for a kind
 * that changes no existing row) and answers what it wrote (the action's result). It refuses with
 * {@code kind_refuse(code, reason)} (the action fails with that code, its write rolls back alone), and calls
 * {@code kind_target_moved()} when its guarded statement matched no row (the gate reads the target again to say why).
 * Writing to another tenant's rows is not possible: every tenant table has row-level security keyed on the
 * transaction's tenant, and the function runs with the executor's rights (security invoker, its search_path pinned).
 */
public interface DatabaseKind extends ActionKind {

    /** The argument types of every write function, in order. */
    String WRITE_ARGUMENTS = "(uuid, text, text, jsonb, bigint)";

    /** The write function's name, unique among the kinds' functions (the registry refuses to start otherwise). */
    String writeFunction();

    /** The write function as PostgreSQL names one function: its name and argument types. */
    default String writeProcedure() {
        return writeFunction() + WRITE_ARGUMENTS;
    }
}
