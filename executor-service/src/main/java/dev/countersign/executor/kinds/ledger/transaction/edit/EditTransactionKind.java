package dev.countersign.executor.kinds.ledger.transaction.edit;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.RowTarget;
import dev.countersign.executor.kind.Undoable;
import dev.countersign.executor.kinds.ledger.LedgerRows;

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

    @Override
    public String undoFunction() {
        return "ledger_transaction_edit_undo";
    }

}
