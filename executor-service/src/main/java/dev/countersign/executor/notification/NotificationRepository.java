package dev.countersign.executor.notification;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/** {@code notification_requests} and {@code notifications} (V35), in one tenant's transactions. */
@ApplicationScoped
public class NotificationRepository {

    /** A request to work out who to tell of an action, for a purpose. */
    public record Request(UUID actionId, String purpose) {
    }

    /** At most {@code limit} of the tenant's due requests, oldest first, that no other transaction holds; locked. */
    public Uni<List<Request>> lockDueRequests(SqlClient sql, String tenantId, int limit) {
        return sql.preparedQuery("SELECT action_id, purpose FROM notification_requests WHERE tenant_id = $1"
                + " AND requested_at <= now() ORDER BY requested_at LIMIT $2 FOR UPDATE SKIP LOCKED")
                .execute(Tuple.of(tenantId, limit))
                .map(rows -> {
                    List<Request> requests = new ArrayList<>();
                    rows.forEach(row -> requests.add(new Request(row.getUUID("action_id"), row.getString("purpose"))));
                    return requests;
                });
    }

    /** Deletes these requests: worked out. */
    public Uni<Void> done(SqlClient sql, String tenantId, List<Request> requests) {
        return sql.preparedQuery("DELETE FROM notification_requests WHERE tenant_id = $1 AND (action_id, purpose) IN"
                + " (SELECT * FROM unnest($2::uuid[], $3::text[]))")
                .execute(Tuple.of(tenantId, requests.stream().map(Request::actionId).toArray(UUID[]::new),
                        requests.stream().map(Request::purpose).toArray(String[]::new)))
                .replaceWithVoid();
    }

    /**
     * Stores the notifications, due {@code delay} from now; one already there for the same person, action, channel and
     * purpose stays alone.
     */
    public Uni<Void> plan(SqlClient sql, List<Notification> planned, Duration delay) {
        if (planned.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        return sql.preparedQuery("INSERT INTO notifications (id, tenant_id, action_id, recipient, channel, purpose,"
                + " address, not_before) SELECT n.*, now() + $8 * interval '1 millisecond' FROM unnest($1::uuid[],"
                + " $2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[]) AS n"
                + " ON CONFLICT (tenant_id, action_id, recipient, channel, purpose) DO NOTHING")
                .execute(Tuple.from(new Object[]{
                        planned.stream().map(Notification::id).toArray(UUID[]::new),
                        planned.stream().map(Notification::tenantId).toArray(String[]::new),
                        planned.stream().map(Notification::actionId).toArray(UUID[]::new),
                        planned.stream().map(Notification::recipient).toArray(String[]::new),
                        planned.stream().map(Notification::channel).toArray(String[]::new),
                        planned.stream().map(Notification::purpose).toArray(String[]::new),
                        planned.stream().map(Notification::address).toArray(String[]::new), delay.toMillis()}))
                .replaceWithVoid();
    }

    /**
     * Claims the notification {@code id} if it is pending, due and tried fewer than {@code attempts} times: it is left
     * alone by other senders for {@code lease} (then due again, if its send was never recorded), its attempts counted.
     * Null if it was not claimable.
     */
    public Uni<Notification> claim(SqlClient sql, String tenantId, UUID id, Duration lease, int attempts) {
        return sql.preparedQuery("UPDATE notifications SET not_before = now() + $3 * interval '1 millisecond',"
                + " attempts = attempts + 1 WHERE tenant_id = $1 AND id = $2 AND state = 'pending'"
                + " AND not_before <= now() AND attempts < $4"
                + " RETURNING id, tenant_id, action_id, recipient, channel, purpose, address, attempts")
                .execute(Tuple.of(tenantId, id, lease.toMillis(), attempts))
                .map(rows -> rows.iterator().hasNext() ? notification(rows.iterator().next()) : null);
    }

    /** Gives up those of {@code ids} that are due and were tried {@code attempts} times already. */
    public Uni<Void> giveUp(SqlClient sql, String tenantId, List<UUID> ids, int attempts) {
        return sql.preparedQuery("UPDATE notifications SET state = 'failed', detail = left('given up after '"
                + " || attempts || ' attempts: ' || coalesce(detail, ''), 500) WHERE tenant_id = $1 AND id = ANY($2)"
                + " AND state = 'pending' AND not_before <= now() AND attempts >= $3")
                .execute(Tuple.of(tenantId, ids.toArray(UUID[]::new), attempts))
                .replaceWithVoid();
    }

    /** Records the send of this claim; false if another sender claimed it since, or it ended. */
    public Uni<Boolean> sent(SqlClient sql, Notification claimed) {
        return sql.preparedQuery("UPDATE notifications SET state = 'sent', sent_at = now(), detail = NULL"
                + " WHERE id = $1 AND attempts = $2 AND state = 'pending'")
                .execute(Tuple.of(claimed.id(), claimed.attempts()))
                .map(rows -> rows.rowCount() == 1);
    }

    /**
     * Records, for this claim, a send that did not happen or failed: tried again once its lease ends, unless
     * {@code finalState} ({@code failed}, {@code dropped}) ends it. Nothing if another sender claimed it since.
     */
    public Uni<Void> failed(SqlClient sql, Notification claimed, String finalState, String detail) {
        return sql.preparedQuery("UPDATE notifications SET state = coalesce($3, state), detail = left($4, 500)"
                + " WHERE id = $1 AND attempts = $2 AND state = 'pending'")
                .execute(Tuple.of(claimed.id(), claimed.attempts(), finalState, detail))
                .replaceWithVoid();
    }

    /** The action's notifications as the decision page shows them, oldest first; never an address. */
    public Uni<List<ActionDeciders.Told>> told(SqlClient sql, String tenantId, UUID actionId) {
        return sql.preparedQuery("SELECT recipient, channel, purpose, state, sent_at FROM notifications"
                + " WHERE tenant_id = $1 AND action_id = $2 ORDER BY created_at, recipient, channel")
                .execute(Tuple.of(tenantId, actionId))
                .map(rows -> {
                    List<ActionDeciders.Told> told = new ArrayList<>();
                    rows.forEach(row -> told.add(new ActionDeciders.Told(row.getString("recipient"),
                            row.getString("channel"), row.getString("purpose"), row.getString("state"),
                            row.getOffsetDateTime("sent_at") == null
                                    ? null
                                    : row.getOffsetDateTime("sent_at").toInstant())));
                    return told;
                });
    }

    /** When the action's reminder was requested ({@code action_reminders}), or null. */
    public Uni<Instant> remindedAt(SqlClient sql, String tenantId, UUID actionId) {
        return sql.preparedQuery("SELECT reminded_at FROM action_reminders WHERE tenant_id = $1 AND action_id = $2")
                .execute(Tuple.of(tenantId, actionId))
                .map(rows -> rows.iterator().hasNext()
                        ? rows.iterator().next().getOffsetDateTime("reminded_at").toInstant()
                        : null);
    }

    private static Notification notification(Row row) {
        return new Notification(row.getUUID("id"), row.getString("tenant_id"), row.getUUID("action_id"),
                row.getString("recipient"), row.getString("channel"), row.getString("purpose"),
                row.getString("address"), row.getInteger("attempts"));
    }
}
