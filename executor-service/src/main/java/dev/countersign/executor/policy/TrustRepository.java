package dev.countersign.executor.policy;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Each user's run of MEDIUM actions a person confirmed, per tenant (earned trust). Counting and resetting are single
 * upserts, so concurrent confirmations of one user's actions each count once.
 */
@ApplicationScoped
public class TrustRepository {

    /** A user's run as stored; a user never counted has a run of zero and no reset. */
    public record Run(int mediumConfirmedInARow, Instant resetAt, String resetBecause) {

        static final Run NONE = new Run(0, null, null);
    }

    /** A user's run, holding a share lock on the row (if there is one) until the transaction ends. */
    public Uni<Run> findForShare(SqlClient sql, String tenantId, String userId) {
        return sql.preparedQuery("SELECT medium_confirmed_in_a_row, reset_at, reset_because FROM user_trust"
                + " WHERE tenant_id = $1 AND user_id = $2 FOR SHARE")
                .execute(Tuple.of(tenantId, userId))
                .map(rows -> rows.size() == 0 ? Run.NONE : run(rows.iterator().next()));
    }

    /** Back to zero: {@code userId}'s agent earns trust again from scratch. */
    public Uni<Void> reset(SqlClient sql, String tenantId, String userId, String because) {
        return sql.preparedQuery("""
                INSERT INTO user_trust (tenant_id, user_id, medium_confirmed_in_a_row, reset_at, reset_because)
                VALUES ($1, $2, 0, now(), $3)
                ON CONFLICT (tenant_id, user_id) DO UPDATE
                SET medium_confirmed_in_a_row = 0, reset_at = now(), reset_because = $3, updated_at = now()""")
                .execute(Tuple.of(tenantId, userId, because))
                .replaceWithVoid();
    }

    private static Run run(Row row) {
        var resetAt = row.getOffsetDateTime("reset_at");
        return new Run(row.getInteger("medium_confirmed_in_a_row"), resetAt == null ? null : resetAt.toInstant(),
                row.getString("reset_because"));
    }
}
