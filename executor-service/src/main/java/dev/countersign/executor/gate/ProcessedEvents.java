package dev.countersign.executor.gate;

import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/** Remembers consumed event ids in the consumer's transaction, which makes every consumer idempotent. */
@ApplicationScoped
public class ProcessedEvents {

    /** True the first time an event id is seen; false for a redelivery (then the caller does nothing). */
    public Uni<Boolean> markFirstDelivery(SqlClient sql, UUID eventId, String consumer) {
        return sql.preparedQuery("INSERT INTO processed_events (event_id, consumer) VALUES ($1, $2)"
                + " ON CONFLICT (consumer, event_id) DO NOTHING")
                .execute(Tuple.of(eventId, consumer))
                .map(rows -> rows.rowCount() == 1);
    }
}
