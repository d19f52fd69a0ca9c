package dev.countersign.executor.kinds.ledger.wallet.transfer;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.StagingCheck;
import dev.countersign.executor.kind.Undoable;

/**
 * {@code ledger.wallet.transfer}: moves an amount from one wallet to another of the same currency, as one transfer and
 * its two legs (migration V31), in the confirming transaction; undo adds the two reversing legs. The database keeps the
 * ledger balanced and the legs unchangeable (R__wallet_transfers.sql), and one action writes at most one transfer.
 * <p>
 * Whose row it writes: both wallets the requester's own, the requester's; otherwise the other person's (the owner of
 * the wallet that is not the requester's), so a transfer between two people needs the other one (or an approver) to
 * countersign, as the decision rule says of another person's row. A transfer between two other people's wallets is
 * refused at staging. Limit: once executed, the owner the rule named may undo it below HIGH (the decision rule's undo
 * cell), which moves the money back out of the requester's wallet without the requester.
 */
@ApplicationScoped
public class TransferKind implements DatabaseKind, Undoable {

    /** The two wallets, by the parameters ({@code $1} as JSON text) in the transaction's tenant ({@code $2}). */
    private static final String PAIR = """
            FROM wallets f JOIN wallets t ON t.tenant_id = f.tenant_id
            WHERE f.id = ($1::text::jsonb ->> 'fromWalletId')::uuid AND t.id = ($1::text::jsonb ->> 'toWalletId')::uuid
              AND current_tenant() = $2""";

    @Override
    public String kind() {
        return ShippedKinds.TRANSFER;
    }

    @Override
    public RowOwner owner() {
        return RowOwner.readFromParams("SELECT CASE WHEN f.owner_id = $3 THEN t.owner_id ELSE f.owner_id END AS owner "
                + PAIR);
    }

    /**
     * Refused at staging: one wallet twice; neither wallet the requester's (a transfer moves the requester's own money,
     * or money into their wallet; between two other people it is theirs to ask for); a wallet that does not exist; two
     * currencies (nothing is converted).
     */
    @Override
    public Optional<StagingCheck> stagingCheck() {
        return Optional.of(new StagingCheck("""
                SELECT refusal, reason FROM (
                    SELECT 1 AS rank, 'validation_failed' AS refusal,
                           'a transfer moves money between two different wallets' AS reason
                    WHERE $1::text::jsonb ->> 'fromWalletId' = $1::text::jsonb ->> 'toWalletId'
                    UNION ALL
                    SELECT 2, 'target_not_found', 'a wallet of this transfer does not exist in this tenant'
                    WHERE NOT EXISTS (SELECT 1 %1$s)
                    UNION ALL
                    SELECT 3, 'wallet_not_owned', 'a transfer moves money from or into a wallet of the requester''s own'
                    %1$s AND f.owner_id <> $3 AND t.owner_id <> $3
                    UNION ALL
                    SELECT 4, 'currency_mismatch', 'the wallets hold different currencies; a transfer converts nothing'
                    %1$s AND f.currency <> t.currency
                ) refusals ORDER BY rank LIMIT 1""".formatted(PAIR)));
    }

    @Override
    public String writeFunction() {
        return "ledger_wallet_transfer_write";
    }

    @Override
    public String undoFunction() {
        return "ledger_wallet_transfer_undo";
    }
}
