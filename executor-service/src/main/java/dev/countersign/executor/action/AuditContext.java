package dev.countersign.executor.action;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Says, for the rest of the current transaction, who is acting and through which channel; the database's history
 * trigger records it with every state the transaction's statements move an action into.
 * <p>
 * Limit: one extra round trip per transaction. Settings are transaction-local ({@code set_config(..., true)}), so they
 * never leak to the next user of the pooled connection.
 */
@ApplicationScoped
public class AuditContext {

    public static final String AGENT = "agent";
    public static final String HTTP = "http";

    public Uni<Void> actingAs(SqlClient sql, String actor, String channel, String reason) {
        return sql.preparedQuery("SELECT set_config('countersign.actor', $1, true),"
                + " set_config('countersign.channel', $2, true), set_config('countersign.reason', $3, true)")
                .execute(Tuple.of(actor, channel, reason == null ? "" : reason))
                .replaceWithVoid();
    }

    /** Changes only the reason, for the next move in this transaction. */
    public Uni<Void> because(SqlClient sql, String reason) {
        return sql.preparedQuery("SELECT set_config('countersign.reason', $1, true)")
                .execute(Tuple.of(reason))
                .replaceWithVoid();
    }
}
