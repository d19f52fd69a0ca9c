package dev.countersign.agent.tools.propose;

import jakarta.inject.Singleton;

import dev.countersign.contracts.catalogue.ActionCatalogue;

/** Proposes {@link ActionCatalogue#EDIT_TRANSACTION}: an edit of a transaction's editable fields. */
@Singleton
public class ProposeTransactionEditTool extends ProposeTool {

    public ProposeTransactionEditTool(ProposalPublisher publisher) {
        super(publisher, "propose_transaction_edit", ActionCatalogue.EDIT_TRANSACTION);
    }
}
