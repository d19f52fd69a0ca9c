package dev.countersign.executor.kinds.ledger.wallet.rename;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.RowTarget;
import dev.countersign.executor.kind.Undoable;
import dev.countersign.executor.kinds.ledger.LedgerRows;

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

    @Override
    public String undoFunction() {
        return "ledger_wallet_rename_undo";
    }
}
