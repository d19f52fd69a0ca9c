package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The agent (or an integration) asks for a write.
 *
 * @param tokenHash
 *            the SHA-256 of a confirm token, for a proposal an integration makes as a service principal
 *            ({@code service:<client>}) and decides by event: required there. On a person's proposal it is ignored: the
 *            executor mints that action's token itself, so the proposer never holds it (agent-service sends none).
 * @param requestedTtlSeconds
 *            how long the proposal may wait for a decision; the executor grants at most its own configured maximum.
 *            Null means the maximum.
 * @param contextClean
 *            the agent's mark that, when the model made this proposal, its context held no free text that the signed-in
 *            user did not write (see docs/security/auto-apply.md). Only {@code true} lets the executor apply it on
 *            arrival; null or false means tainted and it waits for a person. A mark is the agent's claim: a false one
 *            from a compromised agent is bounded by the per-user and per-tenant auto-apply budgets only.
 */
public record ActionProposed(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        UUID actionId,
        String tenantId,
        String userId,
        String conversationId,
        UUID turnId,
        String kind,
        JsonNode params,
        String paramsHash,
        String tokenHash,
        Integer requestedTtlSeconds,
        Boolean contextClean) {

    public static final int SCHEMA_VERSION = 1;

    /** Whether the agent marked the model's context clean when it proposed (absent: tainted). */
    public boolean markedClean() {
        return Boolean.TRUE.equals(contextClean);
    }

    public ActionProposed {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(actionId, "actionId");
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(paramsHash, "paramsHash");
    }
}
