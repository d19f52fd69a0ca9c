package dev.countersign.executor.kinds.ledger.wallet.rename;

import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

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

/** {@code ledger.wallet.rename}: changes the name and nothing else (the currency is never editable). */
@ApplicationScoped
public class RenameWalletKind implements DatabaseKind, Undoable {

    @Override
    public String kind() {
        return ShippedKinds.RENAME_WALLET;
    }

    @Override
    public Optional<RowTarget> target() {
        return Optional.of(new RowTarget("walletId", "wallet", false, """
                SELECT version, jsonb_build_object('name', name)::text AS fields
                FROM wallets WHERE id = $1 AND current_tenant() = $2"""));
    }

    @Override
    public RowOwner owner() {
        return LedgerRows.WALLET_OWNER;
    }

    @Override
    public String writeFunction() {
        return "ledger_wallet_rename_write";
    }

    /**
     * Gives the wallet back the name it had when the action was staged, and that name's writer, if nothing changed it
     * since.
     */
    @Override
    public Uni<Void> undo(SqlClient sql, KindAction executed) {
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
