package dev.countersign.executor.execution;

import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.json.ParamsHash;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.DecisionOutcome;
import dev.countersign.executor.action.LockedAction;
import dev.countersign.executor.db.Pipelining;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.ExecutionRefused;
import dev.countersign.executor.kind.TargetMoved;
import dev.countersign.executor.lifecycle.ActionLifecycle;
import dev.countersign.executor.policy.TenantPolicyRepository;
import dev.countersign.executor.telemetry.ActionTelemetry;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.pgclient.PgException;

/**
 * Runs a confirmed action inside the caller's transaction, whoever confirmed it (a person's decision, or the tier rules
 * on arrival), and for a person's single decision also sends the confirmation ({@link #confirmThenRun}): the write is
 * the kind's SQL function over the stored parameters, which must still hash to what was approved, called in the
 * statement that marks the action executed ({@link ActionLifecycle#executed}); a refused write rolls back alone (the
 * function's savepoint) while the failure itself is recorded. A MEDIUM action a person confirmed counts towards the
 * requester's earned trust, in the same statement.
 */
@ApplicationScoped
public class ActionExecution {

    private final ExecutorRegistry executors;
    private final ActionRepository actions;
    private final ActionLifecycle lifecycle;
    private final TenantPolicyRepository policies;
    private final Targets targets;
    private final ActionTelemetry telemetry;
    private final TenantTransactions transactions;

    public ActionExecution(ExecutorRegistry executors, ActionRepository actions, ActionLifecycle lifecycle,
            TenantPolicyRepository policies, Targets targets, ActionTelemetry telemetry,
            TenantTransactions transactions) {
        this.transactions = transactions;
        this.executors = executors;
        this.actions = actions;
        this.lifecycle = lifecycle;
        this.policies = policies;
        this.targets = targets;
        this.telemetry = telemetry;
    }

    /** Executes {@code confirmed}; a refusal is recorded as the action's failure, not thrown. */
    public Uni<DecisionOutcome> run(SqlClient sql, ActionRow confirmed) {
        return telemetry.execution(confirmed, () -> execute(sql, confirmed));
    }

    /**
     * A confirmation of the action the decision locked: {@code confirm} (the compare-and-swap
     * {@code proposed -> confirmed}), then {@link #run}; {@code lost} answers when the compare-and-swap matched no row.
     * <p>
     * When the swap cannot lose and {@code commitWithWrite}, the swap, the write and the transaction's COMMIT are sent
     * together (one round trip instead of three): the action is locked, still proposed and its window open by the
     * database's clock at the lock (the swap tests the same {@code now()}, the transaction's start, and the token hash
     * the lock matched), and its write stays in this database. The write reads the stored action as the swap left it;
     * its outcome event is built from the locked row as the swap will store it (confirmed at the lock's {@code now()})
     * and executed in the same transaction, and the write's statement fails unless it stored that row (CS004). Whatever
     * would keep the transaction from committing is decided by those statements, so the COMMIT behind them commits only
     * a confirmation that won with its write: a swap that matched no row fails the write's statement (the action is not
     * confirmed), and a kind's refusal fails it too ({@code refusalAborts}). A refusal then answers
     * {@link RefusedWithCommit}, nothing of the transaction kept, and the caller decides again with
     * {@code commitWithWrite} false, which records the failure (a refusal is rare: the target moved, or the kind
     * declined). Any other action (an external send, a kind this build cannot run, parameters that no longer match, a
     * closed window) is confirmed first, then run, and its transaction commits after.
     */
    public Uni<DecisionOutcome> confirmThenRun(SqlClient sql, LockedAction locked, String confirmedBy,
            Uni<ActionRow> confirm, Supplier<Uni<DecisionOutcome>> lost, boolean commitWithWrite) {
        ActionRow row = locked.row();
        DatabaseKind kind = commitWithWrite && row != null && locked.open() && row.status() == ActionStatus.PROPOSED
                && paramsStillMatch(row) && executors.externalFor(row.kind()).isEmpty()
                        ? executors.forKind(row.kind()).orElse(null)
                        : null;
        if (kind == null) {
            return confirm.flatMap(confirmed -> confirmed != null ? run(sql, confirmed) : lost.get());
        }
        ActionRow expected = row.asConfirmedBy(confirmedBy, locked.lockedAt());
        // The execution's span starts with the confirmation its write goes out with.
        return telemetry.execution(expected, () -> {
            // Built (its event, its expected row) before anything of the round trip goes out, so Java failing there
            // sends nothing, not the swap and the COMMIT without the write; and inside the span, whose context its
            // callbacks keep (the log line of the write carries the execution's trace).
            Uni<ActionRow> write = lifecycle.executed(sql, expected, kind.writeProcedure(), true);
            return transactions.commitWith(sql, Pipelining.sendTogether(confirm, () -> write,
                    (confirmed, executed) -> (DecisionOutcome) new DecisionOutcome.Executed(executed)));
        }).onFailure(ActionExecution::refusedByKind).transform(RefusedWithCommit::new);
    }

    /** A kind's refusal raised by {@code execute_action} (CS001 declared, CS002 its guarded write matched no row). */
    private static boolean refusedByKind(Throwable failure) {
        return failure instanceof PgException pg && ("CS001".equals(pg.getSqlState())
                || "CS002".equals(pg.getSqlState()));
    }

    /**
     * A kind refused a write sent with its transaction's COMMIT: the transaction rolled back whole (the confirmation
     * too); deciding again without sending the COMMIT with the write records the refusal as the action's failure.
     */
    public static final class RefusedWithCommit extends RuntimeException {

        RefusedWithCommit(Throwable refusal) {
            super("The write was refused; its transaction, sent with its COMMIT, rolled back", refusal, false, false);
        }
    }

    private Uni<DecisionOutcome> execute(SqlClient sql, ActionRow confirmed) {
        if (!paramsStillMatch(confirmed)) {
            return fail(sql, confirmed, ErrorCode.PARAMS_MISMATCH,
                    "the stored parameters no longer match the approved hash");
        }
        if (executors.externalFor(confirmed.kind()).isPresent()) {
            return claim(sql, confirmed);
        }
        DatabaseKind kind = executors.forKind(confirmed.kind()).orElse(null);
        if (kind == null) {
            // Staging rejects such kinds; this is reached only by an action staged by a build that could run it.
            return fail(sql, confirmed, ErrorCode.KIND_NOT_SUPPORTED, "this executor cannot run " + confirmed.kind());
        }
        return write(sql, confirmed, kind)
                .map(executed -> (DecisionOutcome) new DecisionOutcome.Executed(executed))
                .onFailure(ExecutionRefused.class)
                .recoverWithUni(refused -> fail(sql, confirmed, (ExecutionRefused) refused));
    }

    /**
     * An external call cannot join this transaction: it is claimed here ({@code confirmed -> executing}) and made after
     * the commit ({@link ExternalExecution}). Refused first, with nothing sent, if the tenant switched external sends
     * off or the target (a support case) changed since staging.
     */
    private Uni<DecisionOutcome> claim(SqlClient sql, ActionRow confirmed) {
        return policies.externalSends(sql, confirmed.tenantId()).flatMap(sends -> {
            if (!sends.enabled()) {
                return fail(sql, confirmed, ErrorCode.EXTERNAL_SENDS_DISABLED,
                        "an administrator switched off external sends for this tenant; nothing was sent");
            }
            return targets.unchangedSinceStaging(sql, confirmed)
                    .flatMap(ignored -> actions.claim(sql, confirmed.id()))
                    .map(executing -> (DecisionOutcome) new DecisionOutcome.Claimed(executing))
                    .onFailure(ExecutionRefused.class)
                    .recoverWithUni(refused -> fail(sql, confirmed, (ExecutionRefused) refused));
        });
    }

    /** The write is rebuilt from the stored parameters only, which must still hash to what was approved. */
    public static boolean paramsStillMatch(ActionRow action) {
        return ParamsHash.of(action.params()).equals(action.paramsHash());
    }

    /**
     * The write path of a confirmed action ({@link #confirmThenRun} sends it with the confirmation): the kind's write
     * function and confirmed -> executed with the requester's trust and the outbox event, one statement
     * ({@link ActionLifecycle#executed}). An {@link ExecutionRefused} propagates, the action still confirmed (the
     * caller decides whether the whole transaction or only this action fails); a guarded write that matched no row is
     * explained ({@link Targets#explainMoved}).
     */
    public Uni<ActionRow> write(SqlClient sql, ActionRow confirmed, DatabaseKind kind) {
        return lifecycle.executed(sql, confirmed, kind.writeProcedure(), false).onFailure(TargetMoved.class)
                .recoverWithUni(moved -> targets.explainMoved(sql, confirmed, (TargetMoved) moved));
    }

    /** {@link #write} as an execution span of the action's trace, for a batch member (a batch runs no {@link #run}). */
    public Uni<ActionRow> writeTraced(SqlClient sql, ActionRow confirmed, DatabaseKind kind) {
        return telemetry.execution(confirmed, () -> write(sql, confirmed, kind));
    }

    private Uni<DecisionOutcome> fail(SqlClient sql, ActionRow action, ExecutionRefused refused) {
        return fail(sql, action, refused.code(), refused.getMessage());
    }

    Uni<DecisionOutcome> fail(SqlClient sql, ActionRow action, ErrorCode code, String reason) {
        return lifecycle.failed(sql, action, code, reason)
                .map(failed -> (DecisionOutcome) new DecisionOutcome.Failed(failed, code));
    }
}
