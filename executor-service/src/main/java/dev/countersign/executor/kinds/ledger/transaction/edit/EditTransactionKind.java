package dev.countersign.executor.kinds.ledger.transaction.edit;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.KindAction;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.RowTarget;
import dev.countersign.executor.kind.TextWriters;
import dev.countersign.executor.kind.Undoable;
import dev.countersign.executor.kinds.ledger.LedgerRows;
import io.smallrye.mutiny.Uni;
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
    public String writeFunction() {
        return "ledger_transaction_edit_write";
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
