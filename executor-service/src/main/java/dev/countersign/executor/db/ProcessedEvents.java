package dev.countersign.executor.db;

import java.util.UUID;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Remembers consumed event ids in the consumer's transaction, which makes every consumer idempotent. Event ids are
 * global, not per tenant: the table is reached only through the database function {@code first_delivery}
 * (R__first_delivery.sql).
 */
@ApplicationScoped
public class ProcessedEvents {

    /**
     * Runs {@code work} the first time {@code consumer} sees {@code eventId}, in the caller's transaction; answers
     * {@code ifRedelivered} and does nothing for a redelivery. A null event id (a request over HTTP, not an event) is
     * always a first delivery.
     */
    public <T> Uni<T> onFirstDelivery(SqlClient sql, UUID eventId, String consumer, Supplier<Uni<T>> work,
            T ifRedelivered) {
        if (eventId == null) {
            return work.get();
        }
        return sql.preparedQuery("SELECT first_delivery($1, $2) AS first")
                .execute(Tuple.of(consumer, eventId))
                .flatMap(rows -> rows.iterator().next().getBoolean("first")
                        ? work.get()
                        : Uni.createFrom().item(ifRedelivered));
    }
}
