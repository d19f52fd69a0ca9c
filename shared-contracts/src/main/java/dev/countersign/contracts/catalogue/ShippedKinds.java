package dev.countersign.contracts.catalogue;

/**
 * The names of the kinds this build ships, for their own folders (their executor parts), their tests, the demo model
 * and the fuzzers. The gate, the agent and the pages never use them, nor any kind's name (KindNamesScanTest holds
 * that): they read the declarations ({@link ActionCatalogue}).
 */
public final class ShippedKinds {

    public static final String CREATE_TRANSACTION = "ledger.transaction.create";
    public static final String RENAME_WALLET = "ledger.wallet.rename";
    public static final String EDIT_TRANSACTION = "ledger.transaction.edit";
    public static final String DELETE_TRANSACTION = "ledger.transaction.delete";
    public static final String TRANSFER = "ledger.wallet.transfer";
    public static final String DRAFT_PLAN = "training.plan.draft";
    public static final String REVISE_PLAN = "training.plan.revise";
    public static final String SEND_MAIL = "mail.send";
    public static final String CREATE_TICKET = "ticket.create";

    private ShippedKinds() {
    }
}
