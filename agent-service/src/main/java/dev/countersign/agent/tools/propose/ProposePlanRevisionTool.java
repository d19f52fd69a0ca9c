package dev.countersign.agent.tools.propose;

import jakarta.inject.Singleton;

import dev.countersign.contracts.catalogue.ActionCatalogue;

/** Proposes {@link ActionCatalogue#REVISE_PLAN}: a change to a draft training plan. */
@Singleton
public class ProposePlanRevisionTool extends ProposeTool {

    public ProposePlanRevisionTool(ProposalPublisher publisher) {
        super(publisher, "propose_plan_revision", ActionCatalogue.REVISE_PLAN);
    }
}
