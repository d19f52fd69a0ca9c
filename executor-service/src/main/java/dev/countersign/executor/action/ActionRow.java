package dev.countersign.executor.action;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.Tier;
import dev.countersign.contracts.api.ActionView;
import dev.countersign.contracts.api.FieldChange;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.executor.kind.KindAction;

/**
 * One row of {@code actions}, without its token hash (which never leaves the SQL that checks it); what a kind's part
 * sees of it is {@link KindAction}.
 *
 * @param targetVersion
 *            the version of the row it changes, read when it was staged (null: the kind changes no existing row, or it
 *            was staged before V10); execution writes only while the row still has it
 * @param idempotencyKey
 *            derived from the id by the database (migration V8); what an executor forwards to an external vendor
 * @param traceParent
 *            the W3C {@code traceparent} of the trace its proposal arrived in (V15), or null; telemetry only
 * @param heldReason
 *            why it waits for a person although its tier could have applied it on arrival (V16), or null
 * @param mcpClient
 *            the MCP client its person proposed through, as the identity provider named it (V32), or null
 */
public record ActionRow(
        UUID id,
        String tenantId,
        String requestedBy,
        String conversationId,
        UUID turnId,
        String kind,
        Tier tier,
        ActionStatus status,
        JsonNode params,
        String paramsHash,
        String summary,
        Instant proposedAt,
        Instant expiresAt,
        String confirmedBy,
        Instant confirmedAt,
        Instant executedAt,
        JsonNode result,
        String idempotencyKey,
        Long targetVersion,
        JsonNode targetBefore,
        boolean autoApplied,
        String undoneBy,
        Instant undoneAt,
        String traceParent,
        String heldReason,
        String targetOwner,
        String mcpClient,
        UUID supersedes,
        UUID supersededBy,
        List<String> priorRequesters) implements KindAction {

    /**
     * The requester the decision rule sees when {@code userId} acts on this action: {@code userId} itself if they asked
     * for it or for an action it replaced (an edit), so an edit by someone else never turns a requester into a
     * bystander who may confirm; otherwise its requester.
     */
    public String requesterFor(String userId) {
        return requesters().contains(userId) ? userId : requestedBy;
    }

    /**
     * Everyone who asked for this action: its requester and, for an edit, the requesters of the actions it replaced
     * (the separation of duties counts them all as requesters).
     */
    public List<String> requesters() {
        if (priorRequesters == null || priorRequesters.isEmpty()) {
            return List.of(requestedBy);
        }
        List<String> all = new java.util.ArrayList<>(priorRequesters);
        if (!all.contains(requestedBy)) {
            all.add(requestedBy);
        }
        return List.copyOf(all);
    }

    /**
     * This confirmed action as {@code confirmed -> executed} stores it in the transaction that confirmed it: status
     * executed, the result, and executed at the confirmation's database time (both columns are set to {@code now()},
     * the transaction's start). What the write's outcome event is built from before the update answers.
     */
    public ActionRow executedInSameTransaction(JsonNode executionResult) {
        return moved(ActionStatus.EXECUTED, confirmedBy, confirmedAt, confirmedAt, executionResult);
    }

    /** This proposed action as {@code proposed -> confirmed} stores it, confirmed by {@code user} at {@code at}. */
    public ActionRow asConfirmedBy(String user, Instant at) {
        return moved(ActionStatus.CONFIRMED, user, at, executedAt, result);
    }

    /** This row with another result. */
    public ActionRow withResult(JsonNode otherResult) {
        return moved(status, confirmedBy, confirmedAt, executedAt, otherResult);
    }

    /** This row with the columns a decision or an execution sets replaced; every other column as it is. */
    private ActionRow moved(ActionStatus newStatus, String newConfirmedBy, Instant newConfirmedAt,
            Instant newExecutedAt, JsonNode newResult) {
        return new ActionRow(id, tenantId, requestedBy, conversationId, turnId, kind, tier, newStatus, params,
                paramsHash, summary, proposedAt, expiresAt, newConfirmedBy, newConfirmedAt, newExecutedAt, newResult,
                idempotencyKey, targetVersion, targetBefore, autoApplied, undoneBy, undoneAt, traceParent, heldReason,
                targetOwner, mcpClient, supersedes, supersededBy, priorRequesters);
    }

    /** The view, its headline naming rows by id. */
    public ActionView toView() {
        return toView(PageNames.none());
    }

    /** The view, its headline naming rows as a person's page does. */
    public ActionView toView(PageNames names) {
        String headline = ActionCatalogue.describe(kind, params, names.forAction(requestedBy, params, targetBefore),
                summary);
        return new ActionView(id, kind, tier, status, summary, params, paramsHash, requestedBy, conversationId,
                proposedAt, expiresAt, confirmedBy, confirmedAt, executedAt, result, idempotencyKey, targetBefore,
                FieldChange.between(kind, targetBefore, params), autoApplied, undoneBy, undoneAt, heldReason,
                mcpClient, headline, null, supersedes, supersededBy);
    }
}
