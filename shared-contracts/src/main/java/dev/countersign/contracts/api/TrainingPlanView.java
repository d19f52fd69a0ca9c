package dev.countersign.contracts.api;

import java.time.LocalDate;
import java.util.UUID;

/**
 * One of the caller's training plans as the decision page lists them ({@code GET /api/actions/plans}): drafts they may
 * commit, and the plan active now, which a commit would archive. {@code version} grows with every change (a revision):
 * a commit names the version the person read ({@link PlanCommitRequest}).
 */
public record TrainingPlanView(UUID id, String name, String goal, LocalDate startsOn, String schedule,
        String status, long version) {
}
