package dev.countersign.contracts.api;

import java.time.Instant;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A change of a tenant policy that weakens protection, staged until a second administrator confirms it
 * (docs/security/authorization.md, "Two persons for loosening").
 *
 * @param setting
 *            the setting's name, as in its path: {@code agent-writes}, {@code approvals}, {@code tiers},
 *            {@code external-sends}, {@code auto-apply-budget}
 * @param value
 *            the value proposed, as its {@code PUT} takes it
 * @param status
 *            {@code pending}, {@code applied}, {@code rejected} or {@code superseded} (by a newer proposal)
 * @param breakGlassBy
 *            the operator who exempted it from the second person (a tenant with one administrator), or null
 */
public record PolicyChangeView(UUID id, String setting, JsonNode value, String proposedBy, Instant proposedAt,
        Instant expiresAt, String status, String decidedBy, String breakGlassBy) {
}
