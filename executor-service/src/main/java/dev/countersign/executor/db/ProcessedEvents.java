package dev.countersign.executor.db;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
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
        return onFirstDelivery(sql, eventId, consumer, Uni.createFrom().nullItem(), nothingSent -> work.get(),
                ifRedelivered);
    }

    /**
     * {@link #onFirstDelivery}, with the work's first statement, {@code sentWithTheClaim}, sent together with the claim
     * without waiting for its answer (one round trip less); {@code work} gets its answer. For a redelivery that
     * statement has run for nothing: it must change nothing (a locking read, whose lock the transaction's end
     * releases).
     */
    public <A, T> Uni<T> onFirstDelivery(SqlClient sql, UUID eventId, String consumer, Uni<A> sentWithTheClaim,
            Function<A, Uni<T>> work, T ifRedelivered) {
        if (eventId == null) {
            return sentWithTheClaim.flatMap(answer -> work.apply(answer));
        }
        return Pipelining.sendTogether(sql.preparedQuery("SELECT first_delivery($1, $2) AS first")
                .execute(Tuple.of(consumer, eventId)), () -> sentWithTheClaim,
                (claim, answer) -> new Claimed<>(claim.iterator().next().getBoolean("first"), answer))
                .flatMap(claimed -> claimed.first()
                        ? work.apply(claimed.answer())
                        : Uni.createFrom().item(ifRedelivered));
    }

    /** Whether an event was seen for the first time, and the answer of the statement sent with its claim. */
    private record Claimed<A>(boolean first, A answer) {
    }

    /**
     * Which of {@code eventIds} {@code consumer} sees for the first time, remembered in the caller's transaction (one
     * statement for a batch; an id given twice is one delivery).
     */
    public Uni<Set<UUID>> firstDeliveries(SqlClient sql, String consumer, List<UUID> eventIds) {
        return sql.preparedQuery("SELECT first_deliveries($1, $2) AS event_id")
                .execute(Tuple.of(consumer, eventIds.toArray(UUID[]::new)))
                .map(rows -> {
                    Set<UUID> first = new HashSet<>();
                    rows.forEach(row -> first.add(row.getUUID("event_id")));
                    return first;
                });
    }
}
