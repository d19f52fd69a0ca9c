package dev.countersign.executor.execution;

import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.executor.access.Channel;
import dev.countersign.executor.access.DecisionRule;
import dev.countersign.executor.access.Operation;
import dev.countersign.executor.access.Principal;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.ActionsConfig;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.kind.ExecutionRefused;
import dev.countersign.executor.kind.Undoable;
import dev.countersign.executor.lifecycle.ActionLifecycle;
import dev.countersign.executor.outbox.OutboxRelay;
import dev.countersign.web.ProblemException;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * Undo of an executed action, in one transaction: the action row is locked, the undo must be asked by its requester or
 * an administrator (only an administrator for a HIGH action, which may have needed other approvers), within the window
 * (by the database's clock), of a kind whose executor has an inverse ({@link Undoable}); the inverse writes only if the
 * target still has the version the action left; then {@code executed -> undone} (history records who), the requester's
 * earned trust goes back to zero, and {@code ActionUndone} goes to the outbox. Any refusal leaves everything as it was.
 * An action that k > 1 distinct approvers let run is put back only when k distinct persons the rule allows have asked
 * ({@link UndoApprovals}); each ask before is recorded and answered as such.
 * <p>
 * Limit: only the row the action wrote is put back; what a person did because of it (a reply, a transfer elsewhere) is
 * not.
 */
@ApplicationScoped
public class UndoService {

    private static final String NOT_FOUND = DecisionRule.NOT_FOUND;

    private final TenantTransactions transactions;
    private final ActionRepository actions;
    private final ExecutorRegistry executors;
    private final ActionLifecycle lifecycle;
    private final OutboxRelay relay;
    private final ActionsConfig config;
    private final UndoApprovals undoApprovals;

    public UndoService(TenantTransactions transactions, ActionRepository actions, ExecutorRegistry executors,
            ActionLifecycle lifecycle, OutboxRelay relay, ActionsConfig config,
            UndoApprovals undoApprovals) {
        this.undoApprovals = undoApprovals;
        this.transactions = transactions;
        this.actions = actions;
        this.executors = executors;
        this.lifecycle = lifecycle;
        this.relay = relay;
        this.config = config;
    }

    /** What an undo came to: the action put back, or this person's ask recorded while more are needed. */
    public sealed interface UndoOutcome {

        ActionRow action();
    }

    public record Undone(ActionRow action) implements UndoOutcome {
    }

    /** An action k > 1 approvers let run: undone only when k distinct persons asked; {@code asked} so far. */
    public record AwaitingUndoApprovals(ActionRow action, List<String> asked, int required) implements UndoOutcome {
    }

    /**
     * Undoes the action if the decision rule lets {@code who} (the row's owner below HIGH, or an administrator), and,
     * for an action that k > 1 distinct approvers let run, once k distinct persons so allowed have asked.
     */
    public Uni<UndoOutcome> undo(UUID actionId, String tenantId, Principal who, Channel via) {
        String userId = who.userId();
        return transactions.run(new Actor(tenantId, userId, TenantTransactions.HTTP), sql -> actions
                .lock(sql, actionId, tenantId)
                .flatMap(action -> {
                    refuseUnlessUndoable(action, who, via);
                    return actions.executedWithin(sql, actionId, config.undoWindow()).flatMap(recent -> {
                        if (!recent) {
                            throw new ProblemException(ErrorCode.UNDO_WINDOW_CLOSED,
                                    "This action ran more than %s ago; change the row by hand if needed."
                                            .formatted(config.undoWindow()),
                                    action.toView());
                        }
                        return undoApprovals.required(sql, actionId, tenantId).flatMap(required -> required < 2
                                ? putBack(sql, action, userId).map(undone -> (UndoOutcome) new Undone(undone))
                                : undoApprovals.ask(sql, actionId, tenantId, userId).flatMap(asked -> asked
                                        .size() < required
                                                ? Uni.createFrom().item((UndoOutcome) new AwaitingUndoApprovals(
                                                        action, asked, required))
                                                : putBack(sql, action, userId)
                                                        .map(undone -> (UndoOutcome) new Undone(undone))));
                    });
                }))
                .invoke(relay::wakeUp);
    }

    private void refuseUnlessUndoable(ActionRow action, Principal who, Channel via) {
        if (action == null) {
            throw new ProblemException(ErrorCode.ACTION_NOT_FOUND, NOT_FOUND);
        }
        // A HIGH action may have needed other approvers: an administrator's to undo (the decision rule).
        DecisionRule.require(who, Operation.UNDO, action.tier(), action.requesterFor(who.userId()),
                action.targetOwner(), via,
                "undo this action");
        if (action.status() != ActionStatus.EXECUTED) {
            throw new ProblemException(ErrorCode.INVALID_STATE_TRANSITION,
                    "Only an executed action can be undone; this one is " + action.status().wireName() + ".",
                    action.toView());
        }
        if (executors.undoerFor(action.kind()).isEmpty()) {
            throw new ProblemException(ErrorCode.NOT_UNDOABLE,
                    "A %s action cannot be undone here; propose the opposite change instead.".formatted(action.kind()),
                    action.toView());
        }
    }

    private Uni<ActionRow> putBack(SqlClient sql, ActionRow action, String userId) {
        return actions.undo(sql, action.id(), executors.undoerFor(action.kind()).orElseThrow().undoProcedure())
                .onFailure(ExecutionRefused.class).transform(refused -> new ProblemException(
                        ((ExecutionRefused) refused).code(), refused.getMessage() + ".", action.toView()))
                .flatMap(ignored -> lifecycle.undone(sql, action, userId));
    }
}
