package dev.countersign.executor.seconddevice;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/** {@code second_device_requests} (V39), in one tenant's transactions. */
@ApplicationScoped
public class SecondDeviceRepository {

    private static final String COLUMNS = "notification_id, tenant_id, action_id, user_id, params_hash, binding_code,"
            + " auth_req_id, state, poll_interval, expires_at, created_at, outcome";

    /**
     * Records an accepted request, first polled one interval from now; nothing if its notification recorded one already
     * (a resend). The database refuses one whose action is not proposed or whose hash is not the action's.
     */
    public Uni<Void> record(SqlClient sql, SecondDeviceRequest request) {
        return sql.preparedQuery("INSERT INTO second_device_requests (notification_id, tenant_id, action_id, user_id,"
                + " params_hash, binding_code, auth_req_id, poll_interval, next_poll_at, expires_at)"
                + " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + $8::integer * interval '1 second', $9)"
                + " ON CONFLICT (notification_id) DO NOTHING")
                .execute(Tuple.from(new Object[]{request.notificationId(), request.tenantId(), request.actionId(),
                        request.userId(), request.paramsHash(), request.bindingCode(), request.authReqId(),
                        request.pollInterval(), request.expiresAt().atOffset(ZoneOffset.UTC)}))
                .replaceWithVoid();
    }

    /**
     * Claims a pending request that is due: no other poller takes it for {@code lease}. Null if it was not claimable
     * (another instance has it, or it ended).
     */
    public Uni<SecondDeviceRequest> claim(SqlClient sql, String tenantId, UUID notificationId, Duration lease) {
        return sql.preparedQuery("UPDATE second_device_requests SET next_poll_at = now() + $3 * interval"
                + " '1 millisecond' WHERE tenant_id = $1 AND notification_id = $2 AND state = 'pending'"
                + " AND next_poll_at <= now() RETURNING " + COLUMNS)
                .execute(Tuple.of(tenantId, notificationId, lease.toMillis()))
                .map(SecondDeviceRepository::first);
    }

    /** Whether the notification {@code notificationId} recorded its request already (a resend starts none). */
    public Uni<Boolean> recorded(SqlClient sql, String tenantId, UUID notificationId) {
        return sql.preparedQuery("SELECT 1 FROM second_device_requests WHERE tenant_id = $1 AND notification_id = $2")
                .execute(Tuple.of(tenantId, notificationId))
                .map(rows -> rows.size() > 0);
    }

    /**
     * Keeps every poller off a pending request for {@code duration}: its answer came and is being acted on, which may
     * take longer than a poll's lease.
     */
    public Uni<Void> hold(SqlClient sql, SecondDeviceRequest request, Duration duration) {
        return sql.preparedQuery("UPDATE second_device_requests SET next_poll_at = now() + $3 * interval"
                + " '1 millisecond' WHERE tenant_id = $1 AND notification_id = $2 AND state = 'pending'")
                .execute(Tuple.of(request.tenantId(), request.notificationId(), duration.toMillis()))
                .replaceWithVoid();
    }

    /** Polls again after {@code interval} seconds (the provider's, or a slower one it asked for). */
    public Uni<Void> later(SqlClient sql, SecondDeviceRequest request, int interval) {
        return sql.preparedQuery(
                "UPDATE second_device_requests SET poll_interval = $3, next_poll_at = now() + $3::integer *"
                        + " interval '1 second' WHERE tenant_id = $1 AND notification_id = $2 AND state = 'pending'")
                .execute(Tuple.of(request.tenantId(), request.notificationId(), interval))
                .replaceWithVoid();
    }

    /** Ends a pending request in {@code state}, saying what came of it; false if it had ended already. */
    public Uni<Boolean> end(SqlClient sql, SecondDeviceRequest request, String state, String outcome) {
        return sql.preparedQuery("UPDATE second_device_requests SET state = $3, answered_at = now(),"
                + " outcome = left($4, 500) WHERE tenant_id = $1 AND notification_id = $2 AND state = 'pending'")
                .execute(Tuple.of(request.tenantId(), request.notificationId(), state, outcome))
                .map(rows -> rows.rowCount() == 1);
    }

    /** {@code userId}'s pending requests, oldest first. */
    public Uni<List<SecondDeviceRequest>> pendingFor(SqlClient sql, String tenantId, String userId) {
        return sql.preparedQuery("SELECT " + COLUMNS + " FROM second_device_requests WHERE tenant_id = $1"
                + " AND user_id = $2 AND state = 'pending' ORDER BY created_at")
                .execute(Tuple.of(tenantId, userId))
                .map(SecondDeviceRepository::all);
    }

    /** The action's requests, oldest first. */
    public Uni<List<SecondDeviceRequest>> forAction(SqlClient sql, String tenantId, UUID actionId) {
        return sql.preparedQuery("SELECT " + COLUMNS + " FROM second_device_requests WHERE tenant_id = $1"
                + " AND action_id = $2 ORDER BY created_at, user_id")
                .execute(Tuple.of(tenantId, actionId))
                .map(SecondDeviceRepository::all);
    }

    private static SecondDeviceRequest first(RowSet<Row> rows) {
        return rows.iterator().hasNext() ? request(rows.iterator().next()) : null;
    }

    private static List<SecondDeviceRequest> all(RowSet<Row> rows) {
        List<SecondDeviceRequest> requests = new ArrayList<>();
        rows.forEach(row -> requests.add(request(row)));
        return requests;
    }

    private static SecondDeviceRequest request(Row row) {
        return new SecondDeviceRequest(row.getUUID("notification_id"), row.getString("tenant_id"),
                row.getUUID("action_id"), row.getString("user_id"), row.getString("params_hash"),
                row.getString("binding_code"), row.getString("auth_req_id"), row.getString("state"),
                row.getInteger("poll_interval"), instant(row, "expires_at"), instant(row, "created_at"),
                row.getString("outcome"));
    }

    private static Instant instant(Row row, String column) {
        return row.getOffsetDateTime(column) == null ? null : row.getOffsetDateTime(column).toInstant();
    }
}
