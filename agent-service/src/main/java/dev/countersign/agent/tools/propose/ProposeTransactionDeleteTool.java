package dev.countersign.agent.tools.propose;

import jakarta.inject.Singleton;

import dev.countersign.contracts.catalogue.ActionCatalogue;

/** Proposes {@link ActionCatalogue#DELETE_TRANSACTION}: deleting a transaction. */
@Singleton
public class ProposeTransactionDeleteTool extends ProposeTool {

    public ProposeTransactionDeleteTool(ProposalPublisher publisher) {
        super(publisher, "propose_transaction_delete", ActionCatalogue.DELETE_TRANSACTION);
    }
}
