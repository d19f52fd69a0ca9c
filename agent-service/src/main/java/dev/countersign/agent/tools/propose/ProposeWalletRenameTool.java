package dev.countersign.agent.tools.propose;

import jakarta.inject.Singleton;

import dev.countersign.contracts.catalogue.ActionCatalogue;

/** Proposes {@link ActionCatalogue#RENAME_WALLET}: renaming a wallet. */
@Singleton
public class ProposeWalletRenameTool extends ProposeTool {

    public ProposeWalletRenameTool(ProposalPublisher publisher) {
        super(publisher, "propose_wallet_rename", ActionCatalogue.RENAME_WALLET);
    }
}
