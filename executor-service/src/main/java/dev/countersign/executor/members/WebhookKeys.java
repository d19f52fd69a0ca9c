package dev.countersign.executor.members;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The keys webhook notifications are signed with. Each tenant has a master key ({@code tenant_webhook_secrets}, V36),
 * made on first use; each person's webhook is signed with a key derived from it, their user id and their URL
 * (HMAC-SHA256), in the Standard Webhooks form {@code whsec_<base64>}, which only that person reads
 * ({@code GET /api/me/notifications}). So one member's key verifies and signs that member's messages only: it cannot
 * make a message another member's receiver accepts. Naming another URL gives another key.
 * <p>
 * Limit: there is no rotation yet; a leaked master key is replaced by deleting its row as the database owner (the next
 * use makes another, and every member reads their new key). The master key is stored in the database, readable by the
 * executor's role.
 */
@ApplicationScoped
public class WebhookKeys {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String PREFIX = "whsec_";

    /** The key of {@code userId}'s webhook at {@code url}, in {@code sql}'s transaction of the tenant. */
    public Uni<String> of(SqlClient sql, String tenantId, String userId, String url) {
        return master(sql, tenantId).map(master -> derived(master, tenantId, userId, url));
    }

    /**
     * The tenant's master key, made and stored if it has none. Two first uses at once: the second insert waits for the
     * first and does nothing, and the read after it (a statement of its own, so a snapshot of its own) finds the
     * first's.
     */
    private Uni<byte[]> master(SqlClient sql, String tenantId) {
        return sql.preparedQuery("INSERT INTO tenant_webhook_secrets (tenant_id, secret) VALUES ($1, $2)"
                + " ON CONFLICT (tenant_id) DO NOTHING")
                .execute(Tuple.of(tenantId, newSecret()))
                .flatMap(ignored -> sql.preparedQuery("SELECT secret FROM tenant_webhook_secrets WHERE tenant_id = $1")
                        .execute(Tuple.of(tenantId)))
                .map(rows -> Base64.getDecoder()
                        .decode(rows.iterator().next().getString("secret").substring(PREFIX.length())));
    }

    private static String newSecret() {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        return PREFIX + Base64.getEncoder().encodeToString(key);
    }

    static String derived(byte[] master, String tenantId, String userId, String url) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(master, "HmacSHA256"));
            byte[] key = mac.doFinal(String.join("\n", "countersign-webhook-v1", tenantId, userId, url)
                    .getBytes(StandardCharsets.UTF_8));
            return PREFIX + Base64.getEncoder().encodeToString(key);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
