package dev.countersign.contracts.api;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.Tier;

/**
 * An action as executor-service shows it. Never carries a token or a token hash.
 *
 * @param targetBefore
 *            the fields of the row the action changes, as they were when it was staged (null for kinds that change no
 *            existing row)
 * @param diff
 *            what an edit changes: each field the proposal sets, before and after, computed by the executor
 * @param idempotencyKey
 *            the key executors send to external vendors for this action, derived from its id (the same on every retry
 *            and every instance); retired by the database when the action is cancelled or expires
 * @param autoApplied
 *            confirmed by the tier rules on arrival (LOW, or MEDIUM for a user who earned trust), not by a person
 * @param undoneBy
 *            who undid the executed action (null unless {@code status} is {@code undone})
 * @param headline
 *            what the action does, naming wallets, transactions and plans by what they are called (on a person's page;
 *            {@code summary} names them by id, as stored)
 * @param heldReason
 *            why it waits for a person although its tier could have applied it on arrival (auto-apply budget spent, or
 *            a turn that read text its user did not write); null otherwise
 * @param mcpClient
 *            the MCP client its requester proposed through (docs/mcp.md): the OAuth client id the identity provider
 *            named in the evidence, never a value the agent wrote; null for the built-in chat and integrations
 * @param youMay
 *            what the caller may do to it by the decision rule ({@code confirm}, {@code cancel}, {@code undo},
 *            {@code resolve}), whatever its status now; null where no caller is known (events, a decision's answer)
 * @param supersedes
 *            the action a person's edit replaced with this one (its requester is the editor); null if none
 * @param supersededBy
 *            the action that replaced this one ({@code status} {@code superseded}); null if none
 */
public record ActionView(
        UUID id,
        String kind,
        Tier tier,
        ActionStatus status,
        String summary,
        JsonNode params,
        String paramsHash,
        String requestedBy,
        String conversationId,
        Instant proposedAt,
        Instant expiresAt,
        String confirmedBy,
        Instant confirmedAt,
        Instant executedAt,
        JsonNode result,
        String idempotencyKey,
        JsonNode targetBefore,
        List<FieldChange> diff,
        boolean autoApplied,
        String undoneBy,
        Instant undoneAt,
        String heldReason,
        String mcpClient,
        String headline,
        List<String> youMay,
        UUID supersedes,
        UUID supersededBy) {

    /** This view, saying what its reader may do to it. */
    public ActionView withYouMay(List<String> operations) {
        return new ActionView(id, kind, tier, status, summary, params, paramsHash, requestedBy, conversationId,
                proposedAt, expiresAt, confirmedBy, confirmedAt, executedAt, result, idempotencyKey, targetBefore, diff,
                autoApplied, undoneBy, undoneAt, heldReason, mcpClient, headline, operations, supersedes, supersededBy);
    }
}
