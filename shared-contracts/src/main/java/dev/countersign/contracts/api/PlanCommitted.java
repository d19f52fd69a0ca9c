package dev.countersign.contracts.api;

import java.time.Instant;
import java.util.UUID;

/**
 * {@code POST /api/actions/plans/{id}/commit}: the draft is now the user's active plan.
 *
 * @param archivedPlanId
 *            the plan that was active before and is now archived; null if there was none
 */
public record PlanCommitted(UUID planId, String activatedBy, Instant activatedAt, UUID archivedPlanId) {
}
