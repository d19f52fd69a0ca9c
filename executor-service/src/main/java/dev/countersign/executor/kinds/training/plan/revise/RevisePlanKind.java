package dev.countersign.executor.kinds.training.plan.revise;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.RowTarget;

/**
 * {@code training.plan.revise}: changes the named fields of one of the requester's drafts. An active or archived plan,
 * or another user's, is not a draft of theirs and is refused as not found.
 */
@ApplicationScoped
public class RevisePlanKind implements DatabaseKind {

    @Override
    public String kind() {
        return ShippedKinds.REVISE_PLAN;
    }

    @Override
    public Optional<RowTarget> target() {
        return Optional.of(new RowTarget("planId", "draft plan", true, """
                SELECT version, jsonb_build_object('name', name, 'goal', goal, 'startsOn', starts_on::text,
                                                   'schedule', schedule)::text AS fields
                FROM training_plans WHERE id = $1 AND current_tenant() = $2 AND user_id = $3 AND status = 'draft'"""));
    }

    @Override
    public RowOwner owner() {
        return RowOwner.requester();
    }

    @Override
    public String writeFunction() {
        return "training_plan_revise_write";
    }

}
