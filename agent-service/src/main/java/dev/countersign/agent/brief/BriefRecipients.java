package dev.countersign.agent.brief;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.ledger.TenantReads;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Who in a tenant gets the scheduled brief: every user who owns a wallet, requested an action, has a training plan or a
 * conversation there, read in the tenant's own transaction (row-level security) like every other read.
 */
@ApplicationScoped
public class BriefRecipients {

    private final TenantReads reads;

    public BriefRecipients(TenantReads reads) {
        this.reads = reads;
    }

    /** At most {@code max} users, in id order. */
    public List<String> users(String tenantId, int max) {
        return reads.list(tenantId, """
                SELECT user_id FROM (
                    SELECT owner_id AS user_id FROM wallets WHERE tenant_id = $1
                    UNION SELECT requested_by FROM actions WHERE tenant_id = $1
                    UNION SELECT user_id FROM training_plans WHERE tenant_id = $1
                    UNION SELECT user_id FROM conversation_events WHERE tenant_id = $1) users
                ORDER BY user_id
                LIMIT $2""", Tuple.of(tenantId, max), row -> row.getString("user_id"));
    }
}
