package dev.countersign.executor.db;

import java.util.function.IntFunction;

import dev.countersign.contracts.TenantIsolation;
import dev.countersign.executor.db.TenantTransactions.Actor;

/**
 * The one place of the statement that opens every transaction on tenant data: it names the tenant (row-level security,
 * migration V7), who acts, through which channel and why (the history triggers record them), all transaction-local
 * ({@code set_config(..., true)}). Both paths use it: {@link TenantTransactions} (the reactive SQL client, {@code $n}
 * parameters) and {@link TenantSessions} (Hibernate Reactive, {@code ?n} parameters).
 */
final class TenantSettings {

    private TenantSettings() {
    }

    /** The statement, its parameters written by {@code placeholder} (1-based): tenant, actor, channel, reason. */
    static String select(IntFunction<String> placeholder) {
        return "SELECT " + TenantIsolation.setTenant(placeholder.apply(1)) + ", set_config('countersign.actor', "
                + placeholder.apply(2) + ", true), set_config('countersign.channel', " + placeholder.apply(3)
                + ", true), set_config('countersign.reason', " + placeholder.apply(4) + ", true)";
    }

    /**
     * The same statement for a transaction that only reads: it also makes the transaction read-only
     * ({@code transaction_read_only}, transaction-local), so a write in it is refused (SQLSTATE 25006) rather than
     * recorded as nobody's move. Limit: read-only forbids writes and row locks ({@code FOR UPDATE}), not functions that
     * write through {@code SECURITY DEFINER} (none is reachable from a read).
     */
    static String selectReadOnly(IntFunction<String> placeholder) {
        return select(placeholder) + ", set_config('transaction_read_only', 'on', true)";
    }

    /** Who acts, through which channel and why, for the next moves of an open transaction: actor, channel, reason. */
    static String actAs(IntFunction<String> placeholder) {
        return "SELECT set_config('countersign.actor', " + placeholder.apply(1)
                + ", true), set_config('countersign.channel', " + placeholder.apply(2)
                + ", true), set_config('countersign.reason', " + placeholder.apply(3) + ", true)";
    }

    /** Only the reason, for the next move of an open transaction. */
    static String because(IntFunction<String> placeholder) {
        return "SELECT set_config('countersign.reason', " + placeholder.apply(1) + ", true)";
    }

    /** The opening statement's parameters, in order. */
    static Object[] values(Actor actor) {
        return new Object[]{actor.tenantId(), actor.userId(), actor.channel(),
                actor.reason() == null ? "" : actor.reason()};
    }
}
