package dev.countersign.contracts.api;

import java.util.UUID;

/**
 * {@code POST /api/actions/plans/{id}/commit}: what the person read before committing, so that what they approved is
 * what becomes active. {@code version} is the draft's version they read ({@link TrainingPlanView#version()}); a
 * revision in between (the agent may revise drafts) refuses the commit. {@code replaces} is the active plan they were
 * told the commit archives, or null (or absent) for none; another active plan refuses it too.
 */
public record PlanCommitRequest(Long version, UUID replaces) {
}
