package dev.countersign.executor.decision;

import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ReissuedToken;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.contracts.catalogue.Violation;
import dev.countersign.contracts.events.ActionCancelled;
import dev.countersign.contracts.json.ConfirmTokens;
import dev.countersign.executor.access.Channel;
import dev.countersign.executor.access.DecisionRule;
import dev.countersign.executor.access.Operation;
import dev.countersign.executor.access.Principal;
import dev.countersign.executor.access.Verdict;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.DecisionOutcome;
import dev.countersign.executor.action.LockedAction;
import dev.countersign.executor.db.ProcessedEvents;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.db.TransientFailures;
import dev.countersign.executor.execution.ActionExecution;
import dev.countersign.executor.execution.ExecutorRegistry;
import dev.countersign.executor.execution.ExternalExecution;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.ExecutionRefused;
import dev.countersign.executor.lifecycle.ActionLifecycle;
import dev.countersign.executor.outbox.OutboxRelay;
import dev.countersign.executor.telemetry.ActionTelemetry;
import dev.countersign.web.ProblemException;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * Confirm and execute, in one transaction: compare-and-swap {@code proposed -> confirmed} on (id, tenant, token hash,
 * status, expiry), rebuild the write from the stored proposal only, check its hash, write it, compare-and-swap
 * {@code confirmed -> executed}, and put the outcome in the outbox.
 * <p>
 * Time is the database's ({@code now()}), so instances with drifting clocks agree on expiry.
 * <p>
 * Why this executes at most once: only one transaction can win the first compare-and-swap (PostgreSQL re-checks the
 * WHERE clause of a concurrent UPDATE after the winner commits, and the loser matches no row); if the transaction does
 * not commit, neither the confirmation nor the write exists, and the token still works for a retry. The write may be
 * sent with the compare-and-swap and the COMMIT when the swap cannot miss ({@link ActionExecution#confirmThenRun}); it
 * runs after it, and a swap that missed all the same fails the write's statement and so the transaction, so a write
 * commits only with a confirmation that won. The unique {@code transactions.source_action_id} is a second line for the
 * ledger. Limit: a write outside this database (an e-mail, a ticket) cannot join the transaction; such executors send
 * the action's idempotency key (see {@link DatabaseKind}).
 */
@ApplicationScoped
public class DecisionService {

    private final ActionRepository actions;
    private final ExecutorRegistry executors;
    private final OutboxRelay relay;
    private final TenantTransactions transactions;
    private final ProcessedEvents processed;
    private final SeparationOfDuties separationOfDuties;
    private final ActorMismatches actorMismatches;
    private final ActionExecution execution;
    private final ActionLifecycle lifecycle;
    private final ExternalExecution external;
    private final SingleUseApprovals approvals;

    public DecisionService(TenantTransactions transactions, ActionRepository actions, ExecutorRegistry executors,
            ActionLifecycle lifecycle, OutboxRelay relay, ProcessedEvents processed,
            SeparationOfDuties separationOfDuties, ActorMismatches actorMismatches, ActionExecution execution,
            ExternalExecution external, SingleUseApprovals approvals) {
        this.approvals = approvals;
        this.external = external;
        this.execution = execution;
        this.lifecycle = lifecycle;
        this.actorMismatches = actorMismatches;
        this.separationOfDuties = separationOfDuties;
        this.transactions = transactions;
        this.processed = processed;
        this.actions = actions;
        this.executors = executors;
        this.relay = relay;
    }

    public Uni<DecisionOutcome> confirm(DecisionRequest request) {
        requireParamsHash(request);
        return decide(request, (sql, locked) -> confirmLocked(sql, request, locked, true))
                // The kind refused the write sent with the COMMIT; nothing of that transaction is kept. Decided again,
                // the usual way: the refusal is recorded as the action's failure.
                .onFailure(ActionExecution.RefusedWithCommit.class)
                .recoverWithUni(() -> decide(request, (sql, locked) -> confirmLocked(sql, request, locked, false)))
                .flatMap(outcome -> outcome instanceof DecisionOutcome.Claimed claimed
                        // Committed as executing: the external call is made now, with no transaction open, and runs
                        // to its record even if the caller goes away (its own subscription, not the request's).
                        ? Uni.createFrom().completionStage(external.callAndRecord(claimed.action())
                                .subscribeAsCompletionStage())
                        : Uni.createFrom().item(outcome))
                .invoke(actorMismatches::count);
    }

    private Uni<DecisionOutcome> confirmLocked(SqlClient sql, DecisionRequest request, LockedAction lockedAction,
            boolean commitWithWrite) {
        String tokenHash = lockedAction.tokenHash();
        ActionRow locked = lockedAction.row();
        return Uni.createFrom().deferred(() -> {
            DecisionOutcome refused = refuseBeforeDeciding(request, locked);
            return refused != null
                    ? Uni.createFrom().item(refused)
                    : separationOfDuties.check(sql, request, locked);
        })
                .flatMap(held -> held != null
                        ? Uni.createFrom().item(held)
                        : execution.confirmThenRun(sql, lockedAction, request.userId(),
                                actions.confirm(sql, request.actionId(), request.tenantId(), tokenHash,
                                        request.userId()),
                                () -> explainLoss(sql, request.actionId(), request.tenantId(), tokenHash),
                                commitWithWrite));
    }

    /**
     * The decision rule's answer for a verified person (over HTTP, on the page, or with an approver token on the
     * topic). An integration's unverified decision by the confirm token alone names a person it cannot prove: it may
     * decide only an action whose requester owns the row it writes (and then counts as the one unverified approver,
     * {@link SeparationOfDuties}); a write to another person's row needs a verified person.
     */
    private static boolean entitled(DecisionRequest request, ActionRow action, Operation operation) {
        if (request.decider() == null) {
            return action.targetOwner() == null || action.targetOwner().equals(action.requestedBy());
        }
        return DecisionRule.decide(request.decider(), operation, action.tier(),
                action.requesterFor(request.decider().userId()), action.targetOwner(), request.via()) == Verdict.ALLOW;
    }

    /**
     * Refusals decided from what never changes about an action: who may decide it, the same-turn rule (see
     * {@link DecisionRequest#isSameTurnAs}) and parameters other than the stored ones. Only answered to a holder of the
     * right token ({@code action} is null otherwise); null if neither applies.
     */
    private static DecisionOutcome refuseBeforeDeciding(DecisionRequest request, ActionRow action) {
        if (action == null) {
            return null;
        }
        if (!entitled(request, action, Operation.CONFIRM)) {
            return new DecisionOutcome.NotEntitled(action);
        }
        if (request.isSameTurnAs(action.turnId())) {
            return new DecisionOutcome.SameTurn(action);
        }
        // What the person saw must be what runs: a decision naming other parameters runs nothing.
        if (!request.expectedParamsHash().equals(action.paramsHash())) {
            return new DecisionOutcome.ParamsMismatch(action);
        }
        return null;
    }

    /**
     * Every confirm names the parameters hash the person was shown (the resource and the decisions consumer refuse one
     * without it before calling here); a caller that forgets fails loudly instead of confirming blind.
     */
    private static void requireParamsHash(DecisionRequest request) {
        if (request.expectedParamsHash() == null) {
            throw new IllegalArgumentException("A confirm must name the paramsHash the person was shown");
        }
    }

    /**
     * A fresh token for a still-open proposal, the old one revoked; recorded in the history. The decision rule decides
     * who may ask (an approver who did not ask for the action).
     */
    public Uni<ReissuedToken> reissueToken(UUID actionId, String tenantId, Principal who, Channel via) {
        String token = ConfirmTokens.newToken();
        return transactions.run(new Actor(tenantId, who.userId(), TenantTransactions.HTTP), sql -> actions
                .find(sql, actionId, tenantId)
                .invoke(current -> {
                    if (current != null) {
                        DecisionRule.require(who, Operation.REISSUE_TOKEN, current.tier(),
                                current.requesterFor(who.userId()),
                                current.targetOwner(), via, "get a new confirm token for this action");
                    }
                })
                .flatMap(checked -> actions.reissueToken(sql, actionId, tenantId, ConfirmTokens.hash(token)))
                .flatMap(updated -> updated != null
                        ? Uni.createFrom().item(new ReissuedToken(actionId, token, updated.expiresAt()))
                        : actions.find(sql, actionId, tenantId).map(current -> {
                            throw current == null
                                    ? new ProblemException(ErrorCode.ACTION_NOT_FOUND, "No such action in your tenant.")
                                    : new ProblemException(ErrorCode.INVALID_STATE_TRANSITION,
                                            "Only a proposal still waiting for a decision gets a new token.",
                                            current.toView());
                        })));
    }

    /**
     * Confirms and executes several actions of one tenant in one transaction: all or none. Each keeps its own token
     * check. Actions are taken in id order, so overlapping batches lock their action rows in the same order; the rows
     * their writes touch (wallets) can still be locked in different orders, so a deadlock PostgreSQL breaks (40P01) or
     * a serialization failure is retried, up to three times. If any action cannot be confirmed or written, the
     * transaction rolls back and {@link BatchRefused} says why, per action; nothing is marked failed, because nothing
     * ran.
     */
    public Uni<List<ActionRow>> confirmBatch(List<DecisionRequest> requests) {
        requests.forEach(DecisionService::requireParamsHash);
        List<DecisionRequest> ordered = requests.stream()
                .sorted(java.util.Comparator.comparing(DecisionRequest::actionId)).toList();
        DecisionRequest first = ordered.get(0);
        return transactions.run(new Actor(first.tenantId(), first.userId(), first.channel()), sql -> Multi
                .createFrom().iterable(ordered)
                .onItem().transformToUniAndConcatenate(request -> ActionTelemetry.withLogFields(
                        request.tenantId(), request.actionId(), () -> confirmInBatch(sql, request)))
                .collect().asList())
                .onFailure(TransientFailures::isDeadlockOrSerialization).retry().atMost(3)
                .invoke(executed -> executed.forEach(actorMismatches::countConfirmed))
                .invoke(relay::wakeUp);
    }

    private Uni<ActionRow> confirmInBatch(SqlClient sql, DecisionRequest request) {
        return lockForDecision(sql, request).flatMap(locked -> confirmInBatch(sql, request, locked));
    }

    private Uni<ActionRow> confirmInBatch(SqlClient sql, DecisionRequest request, LockedAction lockedAction) {
        String id = request.actionId().toString();
        String tokenHash = lockedAction.tokenHash();
        ActionRow locked = lockedAction.row();
        return Uni.createFrom().deferred(() -> {
            if (locked != null && !entitled(request, locked, Operation.BATCH_CONFIRM)) {
                throw new BatchRefused(List.of(new Violation(id, ErrorCode.FORBIDDEN.code())));
            }
            if (locked != null && !request.expectedParamsHash().equals(locked.paramsHash())) {
                throw new BatchRefused(List.of(new Violation(id, ErrorCode.PARAMS_MISMATCH.code())));
            }
            return separationOfDuties.check(sql, request, locked);
        }).flatMap(held -> {
            if (held != null) {
                throw new BatchRefused(List.of(new Violation(id,
                        "needs the tenant's approvals for HIGH actions; confirm it on its own")));
            }
            return actions.confirm(sql, request.actionId(), request.tenantId(), tokenHash, request.userId());
        })
                .flatMap(confirmed -> {
                    if (confirmed == null) {
                        return actions.findWithToken(sql, request.actionId(), request.tenantId(), tokenHash)
                                .<ActionRow>map(current -> {
                                    throw new BatchRefused(List.of(new Violation(id, current == null
                                            ? "not found in your tenant"
                                            : "is " + current.status().wireName() + ", not waiting for a decision")));
                                });
                    }
                    if (ActionCatalogue.find(confirmed.kind()).map(ActionDefinition::isExternal).orElse(false)) {
                        throw new BatchRefused(List.of(new Violation(id,
                                "is an external send (e-mail, ticket); confirm it on its own")));
                    }
                    if (!ActionExecution.paramsStillMatch(confirmed)) {
                        throw new BatchRefused(List.of(new Violation(id, ErrorCode.PARAMS_MISMATCH.code())));
                    }
                    return execution.writeTraced(sql, confirmed, executors.forKind(confirmed.kind()).orElseThrow())
                            .onFailure(ExecutionRefused.class).transform(refused -> new BatchRefused(List.of(
                                    new Violation(id, "cannot be written: " + ((ExecutionRefused) refused).code()
                                            .code()))));
                });
    }

    /**
     * Cancel, as the decision rule allows (the requester, the row's owner or an approver), or with the token: same
     * no-oracle answers as confirm; publishes {@code ActionCancelled}.
     */
    public Uni<DecisionOutcome> cancel(DecisionRequest request) {
        return decide(request, (sql, lockedAction) -> lockedAction.row() != null
                && !entitled(request, lockedAction.row(), Operation.CANCEL)
                        ? Uni.createFrom().item((DecisionOutcome) new DecisionOutcome.NotEntitled(lockedAction.row()))
                        : cancelLocked(sql, request, lockedAction.tokenHash()));
    }

    private Uni<DecisionOutcome> cancelLocked(SqlClient sql, DecisionRequest request, String tokenHash) {
        return lifecycle.cancel(sql, request.actionId(), request.tenantId(), tokenHash, request.userId())
                .flatMap(cancelled -> cancelled != null
                        ? Uni.createFrom().item((DecisionOutcome) new DecisionOutcome.Cancelled(cancelled))
                        : explainLoss(sql, request.actionId(), request.tenantId(), tokenHash));
    }

    /**
     * One transaction of the request's tenant, with who and through which channel set for the history: a decision
     * relayed as an event is first recorded as processed (a redelivery decides nothing; the action's lock is sent with
     * that record, in the same round trip, and a redelivery only takes and releases it), its approver token used up
     * (one used before fails the transaction with {@link SingleUseApprovals.AlreadyUsed}: nothing recorded, the
     * consumer parks the record), then the decision runs.
     */
    private Uni<DecisionOutcome> decide(DecisionRequest request, Decision decision) {
        Actor actor = new Actor(request.tenantId(), request.userId(), request.channel());
        return ActionTelemetry.withLogFields(request.tenantId(), request.actionId(),
                () -> transactions.run(actor, sql -> processed.onFirstDelivery(sql, request.eventId(),
                        DecisionConsumer.CONSUMER, lockForDecision(sql, request), locked -> locked.tokenHash() == null
                                || hidden(request, locked.row())
                                        ? Uni.createFrom().item(new DecisionOutcome.NotFound())
                                        : approvals.use(sql, request).flatMap(unused -> unused
                                                ? decision.decide(sql, locked)
                                                : Uni.createFrom().failure(new SingleUseApprovals.AlreadyUsed())),
                        new DecisionOutcome.AlreadyDecided())))
                .invoke(relay::wakeUp);
    }

    /**
     * Whether a person deciding over HTTP or the page may not even read the action: answered as for an action that does
     * not exist (never a refusal that tells it exists, nor its view).
     */
    private static boolean hidden(DecisionRequest request, ActionRow action) {
        return request.decider() != null && action != null && DecisionRule.hidesFrom(request.decider(), action.tier(),
                action.requesterFor(request.decider().userId()), action.targetOwner(), request.via());
    }

    /** What a decision does with the action, once locked. */
    @FunctionalInterface
    private interface Decision {

        /**
         * @param locked
         *            the action, locked (its row null if no action of the tenant has that id and token hash), with the
         *            hash its compare-and-swap matches
         */
        Uni<DecisionOutcome> decide(SqlClient sql, LockedAction locked);
    }

    /**
     * The action locked for the decision, with the token hash the decision's compare-and-swap matches: the hash of the
     * token it carries (the row only if that token is the action's), or, for a signed-in person, the action's stored
     * one, read in the statement that locks the row (null hash and row if the tenant has no such action). The row is
     * read once, locked: the checks before the compare-and-swap see what it will see, and decisions of one action take
     * turns.
     */
    private Uni<LockedAction> lockForDecision(SqlClient sql, DecisionRequest request) {
        if (request.authority() instanceof DecisionAuthority.Token token) {
            String tokenHash = ConfirmTokens.hash(token.rawToken());
            return actions.lockWithToken(sql, request.actionId(), request.tenantId(), tokenHash);
        }
        return actions.lockForPerson(sql, request.actionId(), request.tenantId());
    }

    /** This request did not win: say why without revealing whether an action exists to a wrong token. */
    private Uni<DecisionOutcome> explainLoss(SqlClient sql, UUID actionId, String tenantId, String tokenHash) {
        return actions.findWithToken(sql, actionId, tenantId, tokenHash).flatMap(current -> {
            if (current == null) {
                return Uni.createFrom().item(new DecisionOutcome.NotFound());
            }
            if (current.status() == ActionStatus.PROPOSED) {
                // Still proposed with the right token, yet the compare-and-swap missed: its time is up. Record that,
                // as the sweep would (this transaction holds the row's lock, so the expiry does not skip it).
                return lifecycle.expire(sql, List.of(actionId))
                        .flatMap(expired -> expired.isEmpty()
                                // Someone else moved it meanwhile: answer with what it is now.
                                ? actions.find(sql, actionId, tenantId)
                                        .map(now -> (DecisionOutcome) new DecisionOutcome.NotProposed(now))
                                : Uni.createFrom().item(
                                        (DecisionOutcome) new DecisionOutcome.NotProposed(expired.get(0))));
            }
            return Uni.createFrom().item(new DecisionOutcome.NotProposed(current));
        });
    }
}
