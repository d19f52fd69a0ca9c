package dev.countersign.executor.outbox;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.Topics;
import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.contracts.json.Json;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Appends an event to the outbox inside the caller's transaction, so the event exists if and only if the state change
 * it reports was committed. {@link OutboxRelay} publishes it afterwards.
 */
@ApplicationScoped
public class OutboxWriter {

    public Uni<Void> append(SqlClient sql, ActionOutcome event) {
        return sql.preparedQuery("INSERT INTO outbox (event_id, tenant_id, topic, message_key, payload)"
                + " VALUES ($1, $2, $3, $4, $5)")
                .execute(Tuple.of(event.eventId(), event.tenantId(), Topics.ACTIONS_OUTCOMES,
                        event.actionId().toString(), Json.write(event)))
                .replaceWithVoid();
    }
}
