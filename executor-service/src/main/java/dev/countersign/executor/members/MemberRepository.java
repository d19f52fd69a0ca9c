package dev.countersign.executor.members;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/** {@code tenant_members} (migration V34): the people of a tenant as last seen, in that tenant's transactions. */
@ApplicationScoped
public class MemberRepository {

    private static final String COLUMNS = "tenant_id, user_id, username, email, approver, admin, seen_at, notify_email,"
            + " notify_webhook, webhook_url, webhook_format, notify_second_device";

    /**
     * Records a sighting from a token issued at {@code issuedAt}: the person's groups, username and address as it says;
     * their choice of channels stays. False if a token issued later was recorded already (nothing changes then).
     */
    public Uni<Boolean> seen(SqlClient sql, Sighting sighting, Instant issuedAt) {
        return sql.preparedQuery("INSERT INTO tenant_members (tenant_id, user_id, username, email, approver, admin,"
                + " token_issued_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (tenant_id, user_id) DO UPDATE"
                + " SET username = EXCLUDED.username, email = EXCLUDED.email, approver = EXCLUDED.approver,"
                + " admin = EXCLUDED.admin, token_issued_at = EXCLUDED.token_issued_at, seen_at = statement_timestamp()"
                + " WHERE tenant_members.token_issued_at <= EXCLUDED.token_issued_at")
                .execute(Tuple.from(new Object[]{sighting.tenantId(), sighting.userId(), sighting.username(),
                        sighting.email(), sighting.approver(), sighting.admin(), issuedAt.atOffset(ZoneOffset.UTC)}))
                .map(rows -> rows.rowCount() == 1);
    }

    /** The tenant's members seen at or after {@code seenSince}, by user id. */
    public Uni<List<Member>> seenSince(SqlClient sql, String tenantId, Instant seenSince) {
        return sql.preparedQuery("SELECT " + COLUMNS + " FROM tenant_members WHERE tenant_id = $1 AND seen_at >= $2"
                + " ORDER BY user_id")
                .execute(Tuple.of(tenantId, seenSince.atOffset(ZoneOffset.UTC)))
                .map(rows -> {
                    List<Member> members = new ArrayList<>();
                    rows.forEach(row -> members.add(member(row)));
                    return members;
                });
    }

    /** Sets a member's choice of channels; false if the person is no member (never seen). */
    public Uni<Boolean> choose(SqlClient sql, String tenantId, String userId, NotificationChoice choice) {
        return sql.preparedQuery("UPDATE tenant_members SET notify_email = $3, notify_webhook = $4,"
                + " webhook_url = $5, webhook_format = $6, notify_second_device = $7 WHERE tenant_id = $1"
                + " AND user_id = $2")
                .execute(Tuple.from(new Object[]{tenantId, userId, choice.email(), choice.webhook(),
                        choice.webhookUrl(), choice.webhookFormatOrDefault(), choice.secondDeviceOrDefault()}))
                .map(rows -> rows.rowCount() == 1);
    }

    /** One member, or null. */
    public Uni<Member> find(SqlClient sql, String tenantId, String userId) {
        return sql.preparedQuery("SELECT " + COLUMNS + " FROM tenant_members WHERE tenant_id = $1 AND user_id = $2")
                .execute(Tuple.of(tenantId, userId))
                .map(rows -> rows.iterator().hasNext() ? member(rows.iterator().next()) : null);
    }

    private static Member member(Row row) {
        return new Member(row.getString("tenant_id"), row.getString("user_id"), row.getString("username"),
                row.getString("email"), row.getBoolean("approver"), row.getBoolean("admin"),
                row.getOffsetDateTime("seen_at").toInstant(), row.getBoolean("notify_email"),
                row.getBoolean("notify_webhook"), row.getString("webhook_url"), row.getString("webhook_format"),
                row.getBoolean("notify_second_device"));
    }
}
