package dev.countersign.executor.kinds.ledger.transaction.create;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.ExecutionRefused;
import dev.countersign.executor.kind.KindAction;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.Undoable;
import dev.countersign.executor.kinds.ledger.LedgerRows;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/** {@code ledger.transaction.create}: one ledger row, in a wallet of the action's own tenant. */
@ApplicationScoped
public class CreateTransactionKind implements DatabaseKind, Undoable {

    /**
     * The ledger row ($1 its id, $2 tenant, $3 wallet, $4 amount, $5 category, $6 description, $7 day, $8 the action);
     * public for the confirm benchmark's baseline.
     */
    public static final String INSERT = """
            INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, description, occurred_on,
                                      source_action_id)
            SELECT $1, w.tenant_id, w.id, $4, $5, $6, $7, $8
            FROM wallets w WHERE w.id = $3 AND current_tenant() = $2
            RETURNING id, wallet_id, amount::text AS amount, version""";

    @Override
    public String kind() {
        return ShippedKinds.CREATE_TRANSACTION;
    }

    @Override
    public RowOwner owner() {
        return LedgerRows.WALLET_OWNER;
    }

    @Override
    public Uni<JsonNode> execute(SqlClient sql, KindAction action) {
        JsonNode params = action.params();
        UUID transactionId = UUID.randomUUID();
        // The wallet is looked up in the action's tenant inside the INSERT: a wallet of another tenant is not found.
        return sql.preparedQuery(INSERT)
                .execute(Tuple.from(new Object[]{transactionId, action.tenantId(),
                        UUID.fromString(params.get("walletId").asText()), new BigDecimal(params.get("amount").asText()),
                        params.get("category").asText(),
                        action.param("description"),
                        LocalDate.parse(params.get("occurredOn").asText()), action.id()}))
                .map(rows -> {
                    if (rows.rowCount() == 0) {
                        throw new ExecutionRefused(ErrorCode.TARGET_NOT_FOUND,
                                "wallet %s does not exist in this tenant".formatted(params.get("walletId").asText()));
                    }
                    var row = rows.iterator().next();
                    return (JsonNode) Json.mapper().createObjectNode()
                            .put("transactionId", row.getUUID("id").toString())
                            .put("walletId", row.getUUID("wallet_id").toString())
                            .put("amount", row.getString("amount"))
                            .put("version", row.getLong("version"));
                });
    }

    /** Marks the created transaction deleted (by this action), if nothing changed it since. */
    @Override
    public Uni<Void> undo(SqlClient sql, KindAction executed) {
        return sql.preparedQuery("""
                UPDATE transactions SET deleted_at = now(), deleted_by_action = $3
                WHERE id = $1 AND current_tenant() = $2 AND version = $4 AND deleted_at IS NULL""")
                .execute(Tuple.of(UUID.fromString(executed.result().get("transactionId").asText()),
                        executed.tenantId(), executed.id(), Undoable.writtenVersion(executed)))
                .map(rows -> {
                    if (rows.rowCount() == 0) {
                        throw Undoable.changedSince("transaction");
                    }
                    return null;
                });
    }
}
