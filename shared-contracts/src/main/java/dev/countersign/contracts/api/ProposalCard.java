package dev.countersign.contracts.api;

import java.time.Instant;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A staged write as the chat shows it: read-only. The decision is made on executor-service's own page
 * ({@code /decide/?action=<actionId>}), signed in there; no token or credential for deciding exists in the agent.
 */
public record ProposalCard(
        UUID actionId,
        String kind,
        String summary,
        JsonNode params,
        String paramsHash,
        Instant proposedAt) {
}
