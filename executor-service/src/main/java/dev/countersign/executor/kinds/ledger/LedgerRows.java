package dev.countersign.executor.kinds.ledger;

import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.RowTarget;

/** The ledger's rows as its kinds name them: a wallet's owner is its wallet's, a transaction's its wallet's owner. */
public final class LedgerRows {

    /** A live, confirmed transaction: what an edit or a delete changes. */
    public static final RowTarget TRANSACTION = new RowTarget("transactionId", "transaction", false, """
            SELECT version, jsonb_build_object('amount', amount::text, 'category', category, 'description', description,
                                               'occurredOn', occurred_on::text)::text AS fields
            FROM transactions WHERE id = $1 AND current_tenant() = $2 AND deleted_at IS NULL AND NOT unconfirmed""");

    /** The owner of the wallet in parameter {@code walletId}. */
    public static final RowOwner WALLET_OWNER = RowOwner.readBy("walletId", """
            SELECT owner_id AS owner FROM wallets WHERE id = $1 AND current_tenant() = $2""");

    /** The owner of the wallet the transaction in parameter {@code transactionId} is in. */
    public static final RowOwner TRANSACTION_OWNER = RowOwner.readBy("transactionId",
            """
                    SELECT w.owner_id AS owner FROM transactions t JOIN wallets w ON w.tenant_id = t.tenant_id AND w.id = t.wallet_id
                    WHERE t.id = $1 AND current_tenant() = $2""");

    private LedgerRows() {
    }
}
