package dev.countersign.executor.kinds.ledger.transaction.edit;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.KindAction;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.RowTarget;
import dev.countersign.executor.kind.TargetMoved;
import dev.countersign.executor.kind.TextWriters;
import dev.countersign.executor.kind.Undoable;
import dev.countersign.executor.kinds.ledger.LedgerRows;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * {@code ledger.transaction.edit}: sets the fields the proposal names (the catalogue's editable fields only) and keeps
 * the others; the result records the values before and after.
 * <p>
 * It writes only while the row still has the version it had when the action was staged (checked on the locked row),
 * else the action fails with {@code target_changed}; imported rows not yet confirmed are not edited.
 */
@ApplicationScoped
public class EditTransactionKind implements DatabaseKind, Undoable {

    @Override
    public String kind() {
        return ShippedKinds.EDIT_TRANSACTION;
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
        JsonNode params = action.params();
        String transactionId = params.get("transactionId").asText();
        return sql.preparedQuery("""
                UPDATE transactions t SET amount = coalesce($3, t.amount), category = coalesce($4, t.category),
                       description = coalesce($5, t.description), occurred_on = coalesce($6, t.occurred_on),
                       category_action_id = CASE WHEN $4::text IS NULL THEN t.category_action_id ELSE $8 END,
                       description_action_id = CASE WHEN $5::text IS NULL THEN t.description_action_id ELSE $8 END,
                       version = t.version + 1
                FROM (SELECT id, amount, category, description, occurred_on, category_action_id,
                             description_action_id FROM transactions
                      WHERE id = $1 AND current_tenant() = $2 AND deleted_at IS NULL AND NOT unconfirmed
                        AND ($7::bigint IS NULL OR version = $7) FOR UPDATE) previous
                WHERE t.id = previous.id
                RETURNING previous.amount::text AS previous_amount, previous.category AS previous_category,
                          previous.description AS previous_description, previous.occurred_on AS previous_occurred_on,
                          previous.category_action_id AS previous_category_writer,
                          previous.description_action_id AS previous_description_writer,
                          t.amount::text AS amount, t.category, t.description, t.occurred_on, t.version""")
                .execute(Tuple.from(new Object[]{UUID.fromString(transactionId), action.tenantId(),
                        action.param("amount", BigDecimal::new), action.param("category"),
                        action.param("description"), action.param("occurredOn", LocalDate::parse),
                        action.targetVersion(), action.id()}))
                .map(TargetMoved::unlessNoneMatched)
                .map(rows -> {
                    Row row = rows.iterator().next();
                    ObjectNode result = Json.mapper().createObjectNode().put("transactionId", transactionId)
                            .put("version", row.getLong("version"));
                    result.putObject("before").put("amount", row.getString("previous_amount"))
                            .put("category", row.getString("previous_category"))
                            .put("description", row.getString("previous_description"))
                            .put("occurredOn", row.getLocalDate("previous_occurred_on").toString());
                    result.putObject("after").put("amount", row.getString("amount"))
                            .put("category", row.getString("category"))
                            .put("description", row.getString("description"))
                            .put("occurredOn", row.getLocalDate("occurred_on").toString());
                    TextWriters.record(result, row, "category", "description");
                    return (JsonNode) result;
                });
    }

    /**
     * Puts every field back as the person saw it when the action was staged, and each text's writer as it was, if
     * nothing changed the row since.
     */
    @Override
    public Uni<Void> undo(SqlClient sql, KindAction executed) {
        JsonNode before = executed.targetBefore();
        return sql.preparedQuery("""
                UPDATE transactions SET amount = $3, category = $4, description = $5, occurred_on = $6,
                       category_action_id = $8, description_action_id = $9
                WHERE id = $1 AND current_tenant() = $2 AND version = $7 AND deleted_at IS NULL""")
                .execute(Tuple.from(new Object[]{UUID.fromString(executed.params().get("transactionId").asText()),
                        executed.tenantId(), new BigDecimal(before.get("amount").asText()),
                        before.get("category").asText(),
                        before.hasNonNull("description") ? before.get("description").asText() : null,
                        LocalDate.parse(before.get("occurredOn").asText()), Undoable.writtenVersion(executed),
                        TextWriters.previous(executed, "category"), TextWriters.previous(executed, "description")}))
                .map(rows -> {
                    if (rows.rowCount() == 0) {
                        throw Undoable.changedSince("transaction");
                    }
                    return null;
                });
    }

}
