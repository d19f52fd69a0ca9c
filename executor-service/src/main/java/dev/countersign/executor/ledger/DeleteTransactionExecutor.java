package dev.countersign.executor.ledger;

import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.execution.ActionExecutor;
import dev.countersign.executor.execution.Targets;
import dev.countersign.executor.execution.Undoable;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * {@code ledger.transaction.delete}: marks the transaction deleted (by this action); the row stays for the audit trail
 * and every ledger read leaves it out. The executor role has no DELETE privilege at all.
 */
@ApplicationScoped
public class DeleteTransactionExecutor implements ActionExecutor, Undoable {

    private final Targets targets;

    public DeleteTransactionExecutor(Targets targets) {
        this.targets = targets;
    }

    @Override
    public String kind() {
        return ActionCatalogue.DELETE_TRANSACTION;
    }

    @Override
    public Uni<JsonNode> execute(SqlClient sql, ActionRow action) {
        String transactionId = action.params().get("transactionId").asText();
        return sql
                .preparedQuery(
                        """
                                UPDATE transactions SET deleted_at = now(), deleted_by_action = $3, version = version + 1
                                WHERE id = $1 AND current_tenant() = $2 AND deleted_at IS NULL AND NOT unconfirmed AND ($4::bigint IS NULL OR version = $4)
                                RETURNING amount::text AS amount, category, occurred_on, version""")
                .execute(Tuple.of(UUID.fromString(transactionId), action.tenantId(), action.id(),
                        action.targetVersion()))
                .flatMap(rows -> targets.written(sql, action, rows))
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
    public Uni<Void> undo(SqlClient sql, ActionRow executed) {
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
