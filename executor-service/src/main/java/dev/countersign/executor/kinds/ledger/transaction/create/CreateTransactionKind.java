package dev.countersign.executor.kinds.ledger.transaction.create;

import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.executor.kind.DatabaseKind;
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

    @Override
    public String kind() {
        return ShippedKinds.CREATE_TRANSACTION;
    }

    @Override
    public RowOwner owner() {
        return LedgerRows.WALLET_OWNER;
    }

    @Override
    public String writeFunction() {
        return "ledger_transaction_create_write";
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
