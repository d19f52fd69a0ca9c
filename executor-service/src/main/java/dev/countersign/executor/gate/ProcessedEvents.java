package dev.countersign.executor.gate;

import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Remembers consumed event ids in the consumer's transaction, which makes every consumer idempotent. Event ids are
 * global, not per tenant: the table is reached only through the database function {@code first_delivery} (V7).
 */
@ApplicationScoped
public class ProcessedEvents {

    /** True the first time an event id is seen; false for a redelivery (then the caller does nothing). */
    public Uni<Boolean> markFirstDelivery(SqlClient sql, UUID eventId, String consumer) {
        return sql.preparedQuery("SELECT first_delivery($1, $2) AS first")
                .execute(Tuple.of(consumer, eventId))
                .map(rows -> rows.iterator().next().getBoolean("first"));
    }
}
