package dev.countersign.agent.tools.propose;

import jakarta.inject.Singleton;

import dev.countersign.contracts.catalogue.ActionCatalogue;

/** Proposes {@link ActionCatalogue#DRAFT_PLAN}: a new draft training plan. */
@Singleton
public class ProposePlanDraftTool extends ProposeTool {

    public ProposePlanDraftTool(ProposalPublisher publisher) {
        super(publisher, "propose_plan_draft", ActionCatalogue.DRAFT_PLAN);
    }
}
