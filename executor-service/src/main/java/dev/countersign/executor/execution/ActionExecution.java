package dev.countersign.executor.execution;

import java.util.function.Function;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.json.ParamsHash;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.DecisionOutcome;
import dev.countersign.executor.action.LockedAction;
import dev.countersign.executor.db.Pipelining;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.ExecutionRefused;
import dev.countersign.executor.kind.TargetMoved;
import dev.countersign.executor.lifecycle.ActionLifecycle;
import dev.countersign.executor.lifecycle.StoredRows;
import dev.countersign.executor.policy.TenantPolicyRepository;
import dev.countersign.executor.telemetry.ActionTelemetry;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * Runs a confirmed action inside the caller's transaction, whoever confirmed it (a person's decision, or the tier rules
 * on arrival), and for a person's single decision also sends the confirmation ({@link #confirmThenRun}): the write is
 * rebuilt from the stored parameters, which must still hash to what was approved; a refused write rolls back alone (a
 * savepoint) while the failure itself is recorded. A MEDIUM action a person confirmed counts towards the requester's
 * earned trust, in the same transaction.
 */
@ApplicationScoped
public class ActionExecution {

    private static final String SAVEPOINT = "execute_action";
    /** What a refused write rolls back to; public for the confirm benchmark's baseline. */
    public static final String SET_SAVEPOINT = "SAVEPOINT " + SAVEPOINT;

    private final ExecutorRegistry executors;
    private final ActionRepository actions;
    private final ActionLifecycle lifecycle;
    private final TenantPolicyRepository policies;
    private final Targets targets;
    private final ActionTelemetry telemetry;

    public ActionExecution(ExecutorRegistry executors, ActionRepository actions, ActionLifecycle lifecycle,
            TenantPolicyRepository policies, Targets targets, ActionTelemetry telemetry) {
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
     * When the swap cannot lose, the write is sent with it, without waiting for its answer (one round trip instead of
     * two): the action is locked, still proposed and its window open by the database's clock at the lock (the swap
     * tests the same {@code now()}, the transaction's start, and the token hash the lock matched), and its write stays
     * in this database. The write reads the stored parameters, checked against the approved hash here, and nothing the
     * swap changes, so it is built from the locked row as the swap will store it (its confirmation time left out: no
     * executor reads it). PostgreSQL runs it after the swap, in a savepoint set between them. Should the swap match no
     * row all the same, or store another row than the one the write was built from, the transaction fails and nothing
     * of it commits. Any other action (an external send, a kind this build cannot run, parameters that no longer match,
     * a closed window) is confirmed first, then run.
     */
    public Uni<DecisionOutcome> confirmThenRun(SqlClient sql, LockedAction locked, String confirmedBy,
            Uni<ActionRow> confirm, Supplier<Uni<DecisionOutcome>> lost) {
        ActionRow row = locked.row();
        DatabaseKind executor = row != null && locked.open() && row.status() == ActionStatus.PROPOSED
                && paramsStillMatch(row) && executors.externalFor(row.kind()).isEmpty()
                        ? executors.forKind(row.kind()).orElse(null)
                        : null;
        if (executor == null) {
            return confirm.flatMap(confirmed -> confirmed != null ? run(sql, confirmed) : lost.get());
        }
        ActionRow expected = row.asConfirmedBy(confirmedBy, null);
        // The execution's span starts with the confirmation its write goes out with.
        return telemetry.execution(expected, () -> Pipelining.sendTogether(confirm,
                () -> savepointThenWrite(sql, expected, action -> executeKind(sql, action, executor))
                        .map(WriteAttempt::written).onFailure().recoverWithItem(WriteAttempt::failed),
                (confirmed, attempt) -> attempt.after(confirmedAsExpected(confirmed, row, confirmedBy)))
                .flatMap(attempt -> attempt.failure() == null
                        ? lifecycle.executed(sql, attempt.confirmed(), attempt.result())
                                .map(executed -> (DecisionOutcome) new DecisionOutcome.Executed(executed))
                        : recordRefusal(sql, attempt.confirmed(), attempt.failure())));
    }

    /**
     * The swap's answer, if it is the locked row as confirmed by {@code confirmedBy}; otherwise the transaction fails.
     */
    static ActionRow confirmedAsExpected(ActionRow confirmed, ActionRow locked, String confirmedBy) {
        if (confirmed == null
                || !StoredRows.sameRow(confirmed, locked.asConfirmedBy(confirmedBy, confirmed.confirmedAt()))) {
            throw new IllegalStateException("Action " + locked.id()
                    + " was not confirmed as its write, sent with the confirmation, was built for; nothing commits");
        }
        return confirmed;
    }

    /** The savepoint a refused write rolls back to, sent with the write's first statement (pipelined). */
    private static <T> Uni<T> savepointThenWrite(SqlClient sql, ActionRow confirmed,
            Function<ActionRow, Uni<T>> write) {
        return Pipelining.sendWithoutWaiting(sql.query(SET_SAVEPOINT).execute(), () -> write.apply(confirmed));
    }

    /** A write sent with its confirmation: what it wrote or why it failed, then the confirmed row. */
    private record WriteAttempt(ActionRow confirmed, JsonNode result, Throwable failure) {

        static WriteAttempt written(JsonNode result) {
            return new WriteAttempt(null, result, null);
        }

        static WriteAttempt failed(Throwable failure) {
            return new WriteAttempt(null, null, failure);
        }

        WriteAttempt after(ActionRow confirmedRow) {
            return new WriteAttempt(confirmedRow, result, failure);
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
        DatabaseKind executor = executors.forKind(confirmed.kind()).orElse(null);
        if (executor == null) {
            // Staging rejects such kinds; this is reached only by an action staged by a build that could run it.
            return fail(sql, confirmed, ErrorCode.KIND_NOT_SUPPORTED, "this executor cannot run " + confirmed.kind());
        }
        return savepointThenWrite(sql, confirmed, action -> write(sql, action, executor))
                .map(executed -> (DecisionOutcome) new DecisionOutcome.Executed(executed))
                .onFailure(ExecutionRefused.class).recoverWithUni(refused -> recordRefusal(sql, confirmed, refused));
    }

    /**
     * A write refused ({@link ExecutionRefused}) rolls back to the savepoint and fails the action; anything else fails.
     */
    private Uni<DecisionOutcome> recordRefusal(SqlClient sql, ActionRow confirmed, Throwable failure) {
        if (!(failure instanceof ExecutionRefused refused)) {
            return Uni.createFrom().failure(failure);
        }
        return sql.query("ROLLBACK TO SAVEPOINT " + SAVEPOINT).execute()
                .flatMap(ignored -> fail(sql, confirmed, refused.code(), refused.getMessage()));
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
                    .onFailure(ExecutionRefused.class).recoverWithUni(refused -> fail(sql, confirmed,
                            ((ExecutionRefused) refused).code(), refused.getMessage()));
        });
    }

    /** The write is rebuilt from the stored parameters only, which must still hash to what was approved. */
    public static boolean paramsStillMatch(ActionRow action) {
        return ParamsHash.of(action.params()).equals(action.paramsHash());
    }

    /**
     * The write path of a confirmed action ({@link #confirmThenRun} runs the same steps, its executor's first statement
     * sent with the confirmation): its executor, then confirmed -> executed with the requester's trust and the outbox
     * event ({@link ActionLifecycle#executed}). An {@link ExecutionRefused} propagates (the caller decides whether the
     * whole transaction or only this action fails).
     */
    public Uni<ActionRow> write(SqlClient sql, ActionRow confirmed, DatabaseKind executor) {
        return executeKind(sql, confirmed, executor).flatMap(result -> lifecycle.executed(sql, confirmed, result));
    }

    /** The kind's write; a guarded statement that matched no row is explained ({@link Targets#explainMoved}). */
    private Uni<JsonNode> executeKind(SqlClient sql, ActionRow confirmed, DatabaseKind executor) {
        return executor.execute(sql, confirmed).onFailure(TargetMoved.class)
                .recoverWithUni(moved -> targets.explainMoved(sql, confirmed, (TargetMoved) moved));
    }

    /** {@link #write} as an execution span of the action's trace, for a batch member (a batch runs no {@link #run}). */
    public Uni<ActionRow> writeTraced(SqlClient sql, ActionRow confirmed, DatabaseKind executor) {
        return telemetry.execution(confirmed, () -> write(sql, confirmed, executor));
    }

    Uni<DecisionOutcome> fail(SqlClient sql, ActionRow action, ErrorCode code, String reason) {
        return lifecycle.failed(sql, action, code, reason)
                .map(failed -> (DecisionOutcome) new DecisionOutcome.Failed(failed, code));
    }
}
