package dev.countersign.executor.kinds.ledger.transaction.create;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.Undoable;
import dev.countersign.executor.kinds.ledger.LedgerRows;

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

    @Override
    public String undoFunction() {
        return "ledger_transaction_create_undo";
    }
}
