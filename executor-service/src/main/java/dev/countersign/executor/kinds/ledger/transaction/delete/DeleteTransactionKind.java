package dev.countersign.executor.kinds.ledger.transaction.delete;

import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.KindAction;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.RowTarget;
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
    public String writeFunction() {
        return "ledger_transaction_delete_write";
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
