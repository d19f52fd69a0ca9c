package dev.countersign.executor.lifecycle;

import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.events.ActionExecuted;
import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.db.Pipelining;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.kind.ExecutionRefused;
import dev.countersign.executor.outbox.AppendedOutcome;
import dev.countersign.executor.outbox.OutboxWriter;
import dev.countersign.executor.outbox.OutcomeEvents;
import dev.countersign.executor.policy.EarnedTrust;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * Moves an action from one state to another after it was stored, each move one call that makes the compare-and-swap
 * (setting its history reason where the move has one of its own), counts it towards or against the requester's earned
 * trust, and appends its outcome event to the outbox (which counts the metrics once the transaction commits,
 * {@link OutboxWriter}). Staged and held are announcements of the stored action, not status changes. Every call runs in
 * the caller's transaction: the move, the trust count and the event commit together or not at all.
 * <p>
 * What stays with the callers: who may make the move (the decision rule) and the locks they take first; the
 * confirmation {@code proposed -> confirmed} (a person's, {@code DecisionService}, or the tier rules',
 * {@code StagingService}), which carries its own evidence and is followed by one of these moves in the same
 * transaction; the claim of an external call {@code confirmed -> executing} ({@code ActionExecution}), which commits
 * before the call and announces nothing; and, for an external call's outcome ({@link #callRecorded}), the choice of the
 * new state, the result and the event, which the caller makes from the call's outcome and whose reason it sets with its
 * actor. The database's state machine (R__actions_state_machine.sql) refuses any move not listed there, whoever asks;
 * this class only makes sure the moves it makes do not forget their history, trust or event.
 */
@ApplicationScoped
public class ActionLifecycle {

    /** The history's reason for an action whose decision window closed, whichever path noticed. */
    public static final String EXPIRED_REASON = "the decision window closed";

    private static final Logger LOG = Logger.getLogger(ActionLifecycle.class);

    private final ActionRepository actions;
    private final OutboxWriter outbox;
    private final TenantTransactions transactions;
    private final EarnedTrust trust;

    public ActionLifecycle(ActionRepository actions, OutboxWriter outbox, TenantTransactions transactions,
            EarnedTrust trust) {
        this.actions = actions;
        this.outbox = outbox;
        this.transactions = transactions;
        this.trust = trust;
    }

    /** A newly stored action waits for a person: {@code ActionStaged} for it as it is now. */
    public Uni<Void> staged(SqlClient sql, ActionRow stored) {
        return outbox.append(sql, OutcomeEvents.staged(stored), stored);
    }

    /** {@link #staged} for newly stored actions, their events appended in one statement in the order given. */
    public Uni<Void> staged(SqlClient sql, List<ActionRow> stored) {
        return outbox.append(sql, stored.stream().map(OutcomeEvents::staged).toList(), stored);
    }

    /**
     * A stored action its tier could have applied on arrival waits for a person: the reason is recorded on it (once;
     * the database refuses another), then it is announced as staged.
     */
    public Uni<Void> held(SqlClient sql, ActionRow stored, String reason) {
        return actions.hold(sql, stored.id(), reason).flatMap(held -> staged(sql, held == null ? stored : held));
    }

    /**
     * The kind's write function, then {@code confirmed -> executed} with its result, the trust count and the outcome
     * event, in one statement ({@link ActionRepository#execute}). The event is built here for the row the statement is
     * expected to store (executed in the confirmation's transaction) and the database sets the result into it; the
     * statement fails (CS004) unless it stored that row, and the caller's transaction rolls back (in auto-apply, its
     * savepoint). A refusal of the kind's function fails with {@link ExecutionRefused} ({@code TargetMoved} when its
     * guarded write matched no row), the action still confirmed and nothing of the write kept
     * ({@link ExecutionRefused#declared}); unless {@code refusalAborts}: then the statement fails with the refusal's
     * SQLSTATE, for a write sent with its transaction's COMMIT ({@code TenantTransactions.commitWith}).
     */
    public Uni<ActionRow> executed(SqlClient sql, ActionRow confirmed, String writeProcedure, boolean refusalAborts) {
        ActionRow expected = confirmed.executedInSameTransaction(null);
        ActionExecuted event = OutcomeEvents.executed(expected);
        AppendedOutcome appended = AppendedOutcome.of(event);
        return actions.execute(sql, confirmed.id(), writeProcedure, appended.payload(), appended.type(),
                appended.topic(), appended.toLedger(), expected, refusalAborts)
                .map(executed -> {
                    outbox.countOnCommit(sql, event, executed);
                    // Logged inside the execution's span; the transaction commits after it (or rolls back, rarely).
                    LOG.infof("Action %s of tenant %s (%s) written, executed as its transaction commits",
                            executed.id(), executed.tenantId(), executed.kind());
                    return executed;
                });
    }

    /** {@code confirmed -> failed}, with {@code code} as the history's reason and the action's result. */
    public Uni<ActionRow> failed(SqlClient sql, ActionRow action, ErrorCode code, String reason) {
        LOG.warnf("Action %s of tenant %s failed: %s", action.id(), action.tenantId(), code.code());
        return because(sql, code.code(), () -> actions.markFailed(sql, action.id(), ActionResults.error(code, reason)))
                .call(failed -> outbox.append(sql, OutcomeEvents.failed(failed, code, reason), failed));
    }

    /**
     * {@code proposed -> cancelled} if the token hash matches and the window is still open; the requester's trust run
     * starts again for a MEDIUM action. Null if the compare-and-swap matched no row (nothing else happens then).
     */
    public Uni<ActionRow> cancel(SqlClient sql, UUID id, String tenantId, String tokenHash, String cancelledBy) {
        return actions.cancel(sql, id, tenantId, tokenHash).call(cancelled -> cancelled == null
                ? Uni.createFrom().voidItem()
                : trust.cancelled(sql, cancelled).call(ignored -> outbox.append(sql,
                        OutcomeEvents.cancelled(cancelled, cancelledBy), cancelled)));
    }

    /**
     * {@code proposed -> superseded} by the action {@code by} (a person's edit), if still proposed and open; the
     * requester's trust run starts again for a MEDIUM action (what the agent proposed was not taken as it was), and
     * {@code ActionSuperseded} tells the requester's conversation who edited it, which parameters changed and what
     * replaces it. Null if the compare-and-swap matched no row (nothing else happens then).
     */
    public Uni<ActionRow> superseded(SqlClient sql, UUID id, String tenantId, UUID by, String editedBy,
            List<String> changed) {
        return actions.supersede(sql, id, tenantId, by).call(superseded -> superseded == null
                ? Uni.createFrom().voidItem()
                : trust.edited(sql, superseded).call(ignored -> outbox.append(sql,
                        OutcomeEvents.superseded(superseded, editedBy, changed), superseded)));
    }

    /**
     * {@code proposed|confirmed -> expired} for those of {@code ids} whose window has closed by the database's clock
     * and that are still undecided, skipping rows another transaction holds (a confirm in flight, another instance's
     * sweep; a row this transaction locked itself is not skipped), each announced with {@code ActionExpired}. The one
     * expiry path: the sweep calls it for the due actions of a tenant, a decision that finds its action's window closed
     * for that action.
     */
    public Uni<List<ActionRow>> expire(SqlClient sql, List<UUID> ids) {
        return because(sql, EXPIRED_REASON, () -> actions.expireDue(sql, ids))
                .call(expired -> Multi.createFrom().iterable(expired)
                        .onItem().transformToUniAndConcatenate(
                                row -> outbox.append(sql, OutcomeEvents.expired(row), row))
                        .collect().last());
    }

    /**
     * {@code executed -> undone} by {@code undoneBy}, after the kind's undo put the target back in this transaction;
     * the requester's trust run starts again.
     */
    public Uni<ActionRow> undone(SqlClient sql, ActionRow action, String undoneBy) {
        return actions.markUndone(sql, action.id(), undoneBy)
                .call(undone -> trust.undone(sql, undone)
                        .call(ignored -> outbox.append(sql, OutcomeEvents.undone(undone), undone)));
    }

    /**
     * An external call's outcome recorded: {@code executing -> to}, or {@code needs_review -> to} when a person
     * resolves a review ({@code from}), announced with {@code event} made from the recorded row. Null if another
     * instance moved the action first (nothing else happens then).
     */
    public Uni<ActionRow> callRecorded(SqlClient sql, ActionRow action, ActionStatus from, ActionStatus to,
            JsonNode result, Function<ActionRow, ActionOutcome> event) {
        Uni<ActionRow> moved = from == ActionStatus.NEEDS_REVIEW
                ? actions.resolveReview(sql, action.id(), to, result)
                : actions.recordCall(sql, action.id(), to, result);
        return moved.call(recorded -> recorded == null
                ? Uni.createFrom().voidItem()
                : outbox.append(sql, event.apply(recorded), recorded));
    }

    /**
     * The history's reason for the next move, sent together with the move (one round trip): the move's statement does
     * not depend on the setting's answer, and a failed setting fails the transaction.
     */
    private <T> Uni<T> because(SqlClient sql, String reason, Supplier<Uni<T>> move) {
        return Pipelining.sendWithoutWaiting(transactions.because(sql, reason), move::get);
    }
}
