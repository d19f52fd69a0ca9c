package dev.countersign.executor.decision;

import java.util.List;
import java.util.UUID;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.api.ActionHistoryEntry;
import dev.countersign.contracts.api.ActionPage;
import dev.countersign.contracts.api.ActionView;
import dev.countersign.contracts.api.ApprovalProgress;
import dev.countersign.contracts.api.BatchConfirmRequest;
import dev.countersign.contracts.api.ConfirmRequest;
import dev.countersign.contracts.api.ReissuedToken;
import dev.countersign.contracts.api.ResolveRequest;
import dev.countersign.contracts.api.UndoProgress;
import dev.countersign.contracts.json.ParamsHash;
import dev.countersign.executor.access.Caller;
import dev.countersign.executor.access.Channel;
import dev.countersign.executor.access.DecisionRule;
import dev.countersign.executor.access.Principal;
import dev.countersign.executor.action.ActionFilter;
import dev.countersign.executor.action.ActionReads;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.DecisionOutcome;
import dev.countersign.executor.db.TenantSessions;
import dev.countersign.executor.execution.ExternalExecution;
import dev.countersign.executor.execution.UndoService;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.Ids;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/**
 * The person's side of the gate: look at the actions of the tenant the decision rule lets the caller read (those they
 * asked for or whose row they own; an approver or administrator all), their history, and decide them. The authority to
 * decide is the signed-in caller (a bearer token for this service, or this service's own browser session), as the
 * decision rule allows ({@code DecisionRule}: the owner of the row it writes, or an approver who did not ask for it).
 * No confirm token is needed here; the decisions topic still uses one.
 */
@Path("/api/actions")
@Authenticated
public class ActionResource {

    private static final String NOT_FOUND = DecisionRule.NOT_FOUND;
    private static final int MAX_PAGE = 200;

    private final DecisionService decisions;
    private final ActionReads reads;
    private final TenantSessions sessions;
    private final CurrentUser user;
    private final Caller caller;
    private final UndoService undos;
    private final ExternalExecution external;

    public ActionResource(DecisionService decisions, ActionReads reads, TenantSessions sessions, CurrentUser user,
            UndoService undos, ExternalExecution external, Caller caller) {
        this.caller = caller;
        this.external = external;
        this.undos = undos;
        this.decisions = decisions;
        this.reads = reads;
        this.sessions = sessions;
        this.user = user;
    }

    /**
     * The tenant's actions the caller may read, newest first, narrowed by status, kind or conversation, paged by an
     * opaque cursor.
     */
    @GET
    public Uni<ActionPage> list(@QueryParam("status") String status, @QueryParam("kind") String kind,
            @QueryParam("conversation") String conversation, @QueryParam("cursor") String cursor,
            @QueryParam("limit") @DefaultValue("50") String limitText) {
        int limit = pageSize(limitText);
        ActionStatus wanted = null;
        if (status != null) {
            try {
                wanted = ActionStatus.fromWire(status);
            } catch (IllegalArgumentException e) {
                throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                        "status must be one of " + java.util.Arrays.stream(ActionStatus.values())
                                .map(ActionStatus::wireName).collect(java.util.stream.Collectors.joining(", ")) + ".");
            }
        }
        // PostgreSQL refuses a NUL in text: a filter it could never match is the caller's mistake, not ours.
        if (kind != null && !Identifiers.isPrintableId(kind)
                || conversation != null && !Identifiers.isPrintableId(conversation)) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "kind and conversation must be 1 to %d printable characters.".formatted(Identifiers.MAX_LENGTH));
        }
        PageCursor after = cursor == null ? null : PageCursor.decode(cursor);
        String tenantId = user.tenantId();
        Principal who = caller.principal();
        Channel via = caller.channel();
        if (DecisionRule.readsNothing(who, via)) {
            return Uni.createFrom().item(new ActionPage(List.of(), null));
        }
        ActionFilter filter = new ActionFilter(wanted, kind, conversation, after == null ? null : after.proposedAt(),
                after == null ? null : after.id(), DecisionRule.readsWholeTenant(who, via) ? null : who.userId());
        // One row more than asked tells whether another page exists.
        return sessions.read(tenantId, () -> reads.list(tenantId, filter, limit + 1)
                .flatMap(rows -> reads.pageNames(tenantId).map(names -> {
                    boolean more = rows.size() > limit;
                    List<ActionRow> page = more ? rows.subList(0, limit) : rows;
                    return new ActionPage(page.stream().map(row -> row.toView(names)
                            .withYouMay(Caller.mayDo(who, via, row.tier(), row.requesterFor(who.userId()),
                                    row.targetOwner())))
                            .toList(),
                            more ? PageCursor.after(page.get(page.size() - 1)).encode() : null);
                })));
    }

    @GET
    @Path("/{id}")
    public Uni<ActionView> get(@PathParam("id") String id) {
        UUID actionId = Ids.parseOrNotFound(id, ErrorCode.ACTION_NOT_FOUND, NOT_FOUND);
        String tenantId = user.tenantId();
        Principal who = caller.principal();
        Channel via = caller.channel();
        return sessions.read(tenantId, () -> findReadable(actionId, tenantId, who, via)
                .flatMap(row -> reads.pageNames(tenantId).map(names -> row.toView(names)
                        .withYouMay(Caller.mayDo(who, via, row.tier(), row.requesterFor(who.userId()),
                                row.targetOwner())))));
    }

    /** Every state the action entered, with who and through which channel; 404 like {@link #get}. */
    @GET
    @Path("/{id}/history")
    public Uni<List<ActionHistoryEntry>> history(@PathParam("id") String id) {
        UUID actionId = Ids.parseOrNotFound(id, ErrorCode.ACTION_NOT_FOUND, NOT_FOUND);
        String tenantId = user.tenantId();
        Principal who = caller.principal();
        Channel via = caller.channel();
        return sessions.read(tenantId, () -> findReadable(actionId, tenantId, who, via)
                .flatMap(action -> reads.history(actionId, tenantId)));
    }

    @POST
    @Path("/{id}/confirm")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Response> confirm(@PathParam("id") String id, ConfirmRequest request) {
        UUID actionId = Ids.parseOrNotFound(id, ErrorCode.ACTION_NOT_FOUND, NOT_FOUND);
        return decisions
                .confirm(byCaller(actionId).expecting(paramsHash(request == null ? null : request.paramsHash())))
                .map(ActionResource::confirmAnswer);
    }

    private static Response confirmAnswer(DecisionOutcome outcome) {
        if (outcome instanceof DecisionOutcome.AwaitingApprovals awaiting) {
            // 202: this approval counts, the action waits for more; nothing ran yet.
            return Response.accepted(new ApprovalProgress(awaiting.action().toView(), awaiting.approvers(),
                    awaiting.required())).build();
        }
        if (outcome instanceof DecisionOutcome.NeedsReview review) {
            // 202: confirmed, but whether the vendor acted is unknown; status needs_review, result says why.
            return Response.accepted(review.action().toView()).build();
        }
        if (outcome instanceof DecisionOutcome.Claimed claimed) {
            // 202: confirmed and called, but the outcome could not be recorded yet; the recovery will.
            return Response.accepted(claimed.action().toView()).build();
        }
        return Response.ok(answer(outcome)).build();
    }

    /**
     * An administrator who checked the vendor resolves an external action in {@code needs_review}: executed (it did
     * act) or failed (it did not). Nothing is called again.
     */
    @POST
    @Path("/{id}/resolve")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<ActionView> resolve(@PathParam("id") String id,
            @NotNull(message = "must be \\{\"outcome\": \"executed\" | \"failed\", \"note\": what you checked\\}") @Valid ResolveRequest request) {
        UUID actionId = Ids.parseOrNotFound(id, ErrorCode.ACTION_NOT_FOUND, NOT_FOUND);
        return external.resolve(actionId, user.tenantId(), caller.principal(), caller.channel(),
                request.outcome() == ResolveRequest.Outcome.EXECUTED, request.note()).map(ActionRow::toView);
    }

    /** Who has approved a HIGH action so far (under a k-approvals policy); 404 like {@link #get}. */
    @GET
    @Path("/{id}/approvals")
    public Uni<List<String>> approvals(@PathParam("id") String id) {
        UUID actionId = Ids.parseOrNotFound(id, ErrorCode.ACTION_NOT_FOUND, NOT_FOUND);
        String tenantId = user.tenantId();
        Principal who = caller.principal();
        Channel via = caller.channel();
        return sessions.read(tenantId, () -> findReadable(actionId, tenantId, who, via)
                .flatMap(action -> reads.approvers(actionId, tenantId)));
    }

    /**
     * The action if it exists in this tenant and the decision rule lets {@code who} read it; 404 otherwise, the same
     * answer for both so that a refusal does not tell a colleague's action exists.
     */
    private Uni<ActionRow> findReadable(UUID actionId, String tenantId, Principal who, Channel via) {
        return reads.find(actionId, tenantId).map(row -> {
            if (row == null
                    || DecisionRule.hidesFrom(who, row.tier(), row.requesterFor(who.userId()), row.targetOwner(),
                            via)) {
                throw new ProblemException(ErrorCode.ACTION_NOT_FOUND, NOT_FOUND);
            }
            return row;
        });
    }

    /**
     * Puts back what an executed action wrote, within the undo window and only if its target has not changed since; as
     * the decision rule allows (the row's owner below HIGH, or an administrator). Resets the requester's earned trust.
     * An action that k > 1 approvers let run answers 202 with the undo's progress until k distinct persons asked.
     */
    @POST
    @Path("/{id}/undo")
    public Uni<Response> undo(@PathParam("id") String id) {
        UUID actionId = Ids.parseOrNotFound(id, ErrorCode.ACTION_NOT_FOUND, NOT_FOUND);
        return undos.undo(actionId, user.tenantId(), caller.principal(), caller.channel())
                .map(outcome -> outcome instanceof UndoService.AwaitingUndoApprovals waiting
                        ? Response.accepted(new UndoProgress(waiting.action().toView(), waiting.asked(),
                                waiting.required())).build()
                        : Response.ok(outcome.action().toView()).build());
    }

    /**
     * Cancel a proposal: it will never run. Same answers as confirm for an unknown or foreign action. No
     * {@code paramsHash} needed: refusing to run something does not depend on what was shown.
     */
    @POST
    @Path("/{id}/cancel")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<ActionView> cancel(@PathParam("id") String id, ConfirmRequest request) {
        UUID actionId = Ids.parseOrNotFound(id, ErrorCode.ACTION_NOT_FOUND, NOT_FOUND);
        return decisions.cancel(byCaller(actionId)).map(ActionResource::answer);
    }

    /**
     * Several proposed actions of the tenant confirmed together: executed in one transaction, all or none, each with
     * its own checks. On refusal nothing ran, and {@code violations} names each blocking action.
     */
    @POST
    @Path("/confirm-batch")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<List<ActionView>> confirmBatch(
            @NotNull(message = "must be \\{\"items\": [\\{\"actionId\": ..., \"paramsHash\": ...\\}]\\}") @Valid BatchConfirmRequest request) {
        // Across items, so by hand (each item's actionId is a constraint on Item): each action once.
        if (request.items().stream().map(BatchConfirmRequest.Item::actionId).distinct().count() != request.items()
                .size()) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, "Each action may appear only once.");
        }
        String tenantId = user.tenantId();
        Principal decider = caller.principal();
        Channel via = caller.channel();
        List<DecisionRequest> decisionRequests = request.items().stream()
                .map(item -> DecisionRequest.overHttp(item.actionId(), tenantId, decider, via)
                        .expecting(paramsHash(item.paramsHash())))
                .toList();
        return decisions.confirmBatch(decisionRequests)
                .map(rows -> rows.stream().map(ActionRow::toView).toList())
                .onFailure(BatchRefused.class).transform(refused -> new ProblemException(ErrorCode.BATCH_REFUSED,
                        "Nothing of the batch ran; see violations for the action that stopped it.",
                        ((BatchRefused) refused).reasons()));
    }

    /**
     * A fresh confirm token for a proposal still waiting, for an integration that decides by event (the decisions
     * topic): an approver who did not ask for the action (the decision rule); the old token stops working; recorded in
     * the history.
     */
    @POST
    @Path("/{id}/reissue-token")
    public Uni<ReissuedToken> reissueToken(@PathParam("id") String id) {
        UUID actionId = Ids.parseOrNotFound(id, ErrorCode.ACTION_NOT_FOUND, NOT_FOUND);
        return decisions.reissueToken(actionId, user.tenantId(), caller.principal(), caller.channel());
    }

    /** Parsed here rather than by JAX-RS, whose conversion failure on a query parameter answers 404. */
    private static int pageSize(String limitText) {
        try {
            int limit = Integer.parseInt(limitText);
            if (limit >= 1 && limit <= MAX_PAGE) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new ProblemException(ErrorCode.VALIDATION_FAILED, "limit must be a number from 1 to " + MAX_PAGE + ".");
    }

    /** A decision by the signed-in caller: entitled as the action's requester or as an approver of the tenant. */
    private DecisionRequest byCaller(UUID actionId) {
        return DecisionRequest.overHttp(actionId, user.tenantId(), caller.principal(), caller.channel());
    }

    /**
     * A confirm must pin what the person saw: the card's {@code paramsHash}. Checked before anything is read or
     * written, so a refused confirm changes nothing.
     */
    private static String paramsHash(String paramsHash) {
        if (!ParamsHash.isWellFormed(paramsHash)) {
            throw new ProblemException(ErrorCode.PARAMS_HASH_REQUIRED,
                    "Send the paramsHash of the action as you were shown it (64 lower-case hex digits, from the"
                            + " action view, GET /api/actions/{id}); nothing changed.");
        }
        return paramsHash;
    }

    /** Maps the outcome to the answer: the winner sees the executed action, everyone else a problem saying why. */
    private static ActionView answer(DecisionOutcome outcome) {
        if (outcome instanceof DecisionOutcome.Executed executed) {
            return executed.action().toView();
        }
        if (outcome instanceof DecisionOutcome.Cancelled cancelled) {
            return cancelled.action().toView();
        }
        if (outcome instanceof DecisionOutcome.ParamsMismatch mismatch) {
            throw new ProblemException(ErrorCode.PARAMS_MISMATCH,
                    "The parameters you confirmed are not the ones stored for this action; nothing ran. Reload it.",
                    mismatch.action().toView());
        }
        if (outcome instanceof DecisionOutcome.ApproverNotAllowed refused) {
            throw new ProblemException(ErrorCode.APPROVER_NOT_ALLOWED,
                    "Your tenant needs another approver than the requester for this action.",
                    refused.action().toView());
        }
        if (outcome instanceof DecisionOutcome.NotEntitled notEntitled) {
            throw new ProblemException(ErrorCode.FORBIDDEN,
                    "The decision rule does not let you decide this action: a write to another person's row needs its"
                            + " owner or an approver of your tenant who did not ask for it; stopping one, whoever"
                            + " asked for it (docs/security/authorization.md).",
                    notEntitled.action().toView());
        }
        if (outcome instanceof DecisionOutcome.SameTurn sameTurn) {
            throw new ProblemException(ErrorCode.SAME_TURN_CONFIRM,
                    "A decision from the chat cannot come in the turn that proposed the action; nothing changed.",
                    sameTurn.action().toView());
        }
        if (outcome instanceof DecisionOutcome.Failed failed) {
            throw new ProblemException(failed.code(),
                    "The action was confirmed but could not be written; it is now failed and nothing was written."
                            + " Ask the assistant for a new proposal.",
                    failed.action().toView());
        }
        if (outcome instanceof DecisionOutcome.NotProposed current) {
            throw new ProblemException(ErrorCode.INVALID_STATE_TRANSITION,
                    "The action is %s and can no longer be decided; see action.status and action.result."
                            .formatted(current.action().status().wireName()),
                    current.action().toView());
        }
        throw new ProblemException(ErrorCode.ACTION_NOT_FOUND, NOT_FOUND);
    }
}
