package dev.countersign.agent.tools.propose;

import jakarta.inject.Singleton;

import dev.countersign.contracts.catalogue.ActionCatalogue;

/** Proposes {@link ActionCatalogue#SEND_MAIL}: an e-mail to a case's requestor. */
@Singleton
public class ProposeRequestorEmailTool extends ProposeTool {

    public ProposeRequestorEmailTool(ProposalPublisher publisher) {
        super(publisher, "propose_requestor_email", ActionCatalogue.SEND_MAIL);
    }
}
