package dev.countersign.executor.notification;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The secret a tenant's webhooks are signed with ({@code tenant_webhook_secrets}, V36), made on first use: by the first
 * webhook sent or the first administrator who reads it, whichever comes first. Two at once both land on the one stored
 * (the insert does nothing for the second, which then reads the first's).
 * <p>
 * Limit: there is no rotation yet; a leaked secret is replaced by deleting the row as the database owner (the next use
 * makes another) and giving receivers the new one.
 */
@ApplicationScoped
public class WebhookSecrets {

    /** The tenant's secret, in {@code sql}'s transaction of that tenant; made and stored if it has none. */
    public Uni<String> of(SqlClient sql, String tenantId) {
        return sql.preparedQuery("WITH made AS (INSERT INTO tenant_webhook_secrets (tenant_id, secret) VALUES ($1, $2)"
                + " ON CONFLICT (tenant_id) DO NOTHING RETURNING secret)"
                + " SELECT secret FROM made UNION ALL SELECT secret FROM tenant_webhook_secrets WHERE tenant_id = $1")
                .execute(Tuple.of(tenantId, WaitingWebhook.newSecret()))
                .map(rows -> rows.iterator().next().getString("secret"));
    }
}
