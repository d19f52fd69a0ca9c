package dev.countersign.executor.ledger;

import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.execution.ActionExecutor;
import dev.countersign.executor.execution.Targets;
import dev.countersign.executor.execution.TextWriters;
import dev.countersign.executor.execution.Undoable;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/** {@code ledger.wallet.rename}: changes the name and nothing else (the currency is never editable). */
@ApplicationScoped
public class RenameWalletExecutor implements ActionExecutor, Undoable {

    private final Targets targets;

    public RenameWalletExecutor(Targets targets) {
        this.targets = targets;
    }

    @Override
    public String kind() {
        return ActionCatalogue.RENAME_WALLET;
    }

    @Override
    public Uni<JsonNode> execute(SqlClient sql, ActionRow action) {
        String walletId = action.params().get("walletId").asText();
        String name = action.params().get("name").asText();
        return sql.preparedQuery("""
                UPDATE wallets w SET name = $3, name_action_id = $5, version = w.version + 1
                FROM (SELECT id, name, name_action_id FROM wallets WHERE id = $1 AND current_tenant() = $2
                      AND ($4::bigint IS NULL OR version = $4) FOR UPDATE) previous
                WHERE w.id = previous.id
                RETURNING previous.name AS previous_name, previous.name_action_id AS previous_name_writer, w.version""")
                .execute(Tuple.of(UUID.fromString(walletId), action.tenantId(), name, action.targetVersion(),
                        action.id()))
                .flatMap(rows -> targets.written(sql, action, rows))
                .map(rows -> {
                    var row = rows.iterator().next();
                    ObjectNode result = Json.mapper().createObjectNode()
                            .put("walletId", walletId)
                            .put("previousName", row.getString("previous_name"))
                            .put("name", name)
                            .put("version", row.getLong("version"));
                    TextWriters.record(result, row, "name");
                    return (JsonNode) result;
                });
    }

    /**
     * Gives the wallet back the name it had when the action was staged, and that name's writer, if nothing changed it
     * since.
     */
    @Override
    public Uni<Void> undo(SqlClient sql, ActionRow executed) {
        return sql.preparedQuery("UPDATE wallets SET name = $3, name_action_id = $5"
                + " WHERE id = $1 AND current_tenant() = $2 AND version = $4")
                .execute(Tuple.of(UUID.fromString(executed.params().get("walletId").asText()), executed.tenantId(),
                        executed.targetBefore().get("name").asText(), Undoable.writtenVersion(executed),
                        TextWriters.previous(executed, "name")))
                .map(rows -> {
                    if (rows.rowCount() == 0) {
                        throw Undoable.changedSince("wallet");
                    }
                    return null;
                });
    }
}
