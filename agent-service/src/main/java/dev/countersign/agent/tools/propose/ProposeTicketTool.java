package dev.countersign.agent.tools.propose;

import jakarta.inject.Singleton;

import dev.countersign.contracts.catalogue.ActionCatalogue;

/** Proposes {@link ActionCatalogue#CREATE_TICKET}: a ticket in the external ticket system. */
@Singleton
public class ProposeTicketTool extends ProposeTool {

    public ProposeTicketTool(ProposalPublisher publisher) {
        super(publisher, "propose_ticket", ActionCatalogue.CREATE_TICKET);
    }
}
