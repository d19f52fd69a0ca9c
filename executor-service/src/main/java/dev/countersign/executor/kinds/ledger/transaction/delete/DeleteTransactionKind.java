package dev.countersign.executor.kinds.ledger.transaction.delete;

import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.KindAction;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.RowTarget;
import dev.countersign.executor.kind.TargetMoved;
import dev.countersign.executor.kind.Undoable;
import dev.countersign.executor.kinds.ledger.LedgerRows;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * {@code ledger.transaction.delete}: marks the transaction deleted (by this action); the row stays for the audit trail
 * and every ledger read leaves it out. The executor role has no DELETE privilege at all.
 */
@ApplicationScoped
public class DeleteTransactionKind implements DatabaseKind, Undoable {

    @Override
    public String kind() {
        return ShippedKinds.DELETE_TRANSACTION;
    }

    @Override
    public Optional<RowTarget> target() {
        return Optional.of(LedgerRows.TRANSACTION);
    }

    @Override
    public RowOwner owner() {
        return LedgerRows.TRANSACTION_OWNER;
    }

    @Override
    public Uni<JsonNode> execute(SqlClient sql, KindAction action) {
        String transactionId = action.params().get("transactionId").asText();
        return sql
                .preparedQuery(
                        """
                                UPDATE transactions SET deleted_at = now(), deleted_by_action = $3, version = version + 1
                                WHERE id = $1 AND current_tenant() = $2 AND deleted_at IS NULL AND NOT unconfirmed AND ($4::bigint IS NULL OR version = $4)
                                RETURNING amount::text AS amount, category, occurred_on, version""")
                .execute(Tuple.of(UUID.fromString(transactionId), action.tenantId(), action.id(),
                        action.targetVersion()))
                .map(TargetMoved::unlessNoneMatched)
                .map(rows -> {
                    var row = rows.iterator().next();
                    return (JsonNode) Json.mapper().createObjectNode().put("transactionId", transactionId)
                            .put("deleted", true).put("amount", row.getString("amount"))
                            .put("category", row.getString("category"))
                            .put("occurredOn", row.getLocalDate("occurred_on").toString())
                            .put("version", row.getLong("version"));
                });
    }

    /** Brings the transaction back, if it is still deleted by this action and nothing changed it since. */
    @Override
    public Uni<Void> undo(SqlClient sql, KindAction executed) {
        return sql.preparedQuery("""
                UPDATE transactions SET deleted_at = NULL, deleted_by_action = NULL
                WHERE id = $1 AND current_tenant() = $2 AND version = $3 AND deleted_by_action = $4""")
                .execute(Tuple.of(UUID.fromString(executed.params().get("transactionId").asText()),
                        executed.tenantId(), Undoable.writtenVersion(executed), executed.id()))
                .map(rows -> {
                    if (rows.rowCount() == 0) {
                        throw Undoable.changedSince("transaction");
                    }
                    return null;
                });
    }
}
