package dev.countersign.executor.kinds.training.plan.draft;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.RowOwner;

/** {@code training.plan.draft}: a new plan of the requester, always a draft; its id is the action's id. */
@ApplicationScoped
public class DraftPlanKind implements DatabaseKind {

    @Override
    public String kind() {
        return ShippedKinds.DRAFT_PLAN;
    }

    @Override
    public RowOwner owner() {
        return RowOwner.requester();
    }

    @Override
    public String writeFunction() {
        return "training_plan_draft_write";
    }
}
