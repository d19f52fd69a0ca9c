package dev.countersign.executor.kinds.ledger.transaction.delete;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.RowTarget;
import dev.countersign.executor.kind.Undoable;
import dev.countersign.executor.kinds.ledger.LedgerRows;

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

    @Override
    public String undoFunction() {
        return "ledger_transaction_delete_undo";
    }
}
