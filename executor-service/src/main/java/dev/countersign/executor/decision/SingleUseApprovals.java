package dev.countersign.executor.decision;

import java.time.ZoneOffset;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Makes an approver token on the decisions topic single use: the first decision event that carries it records its
 * {@code jti} with that event's action and parameters hash (table {@code approver_token_uses}, V27), in the decision's
 * own transaction, once the action is found, whatever the decision then comes to (a refused one spends it too, so a
 * token cannot be tried against one parameters hash after another); any other event carrying the same token finds it
 * taken and decides nothing. A redelivery of the same event never gets here (the consumer's dedup record comes first,
 * in the same transaction).
 * <p>
 * Limits: the token itself is still a bearer token of the executor's audience until it expires: whoever reads it from
 * the topic's log (kept one hour; integrations cannot read the topic, the executor only) could call the executor's HTTP
 * API as that person for its remaining life. Keep approver tokens short-lived (Keycloak's default access token lives
 * five minutes). A signed approval assertion the HTTP API would not accept is not built.
 */
@ApplicationScoped
public class SingleUseApprovals {

    /**
     * A decision whose approver token another decision used: its transaction rolls back (nothing decided, the event not
     * recorded as processed) and the consumer parks the record.
     */
    public static final class AlreadyUsed extends RuntimeException {

        public AlreadyUsed() {
            super("approver token already used by another decision", null, false, false);
        }
    }

    /**
     * Whether {@code request} may use its approver token: true if it carries none, or if this is the token's first use
     * (now recorded); false if another decision used it.
     */
    public Uni<Boolean> use(SqlClient sql, DecisionRequest request) {
        DecisionRequest.ApproverToken token = request.approverToken();
        if (token == null) {
            return Uni.createFrom().item(true);
        }
        return sql.preparedQuery("""
                INSERT INTO approver_token_uses (token_id, tenant_id, action_id, event_id, params_hash, expires_at)
                VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (token_id) DO NOTHING""")
                .execute(Tuple.from(new Object[]{token.tokenId(), request.tenantId(), request.actionId(),
                        request.eventId(), request.expectedParamsHash(), token.expiresAt().atOffset(ZoneOffset.UTC)}))
                .map(rows -> rows.rowCount() == 1);
    }
}
