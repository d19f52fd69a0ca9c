package dev.countersign.executor.execution;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.json.ParamsHash;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.DecisionOutcome;
import dev.countersign.executor.db.Pipelining;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.outbox.OutboxWriter;
import dev.countersign.executor.outbox.OutcomeEvents;
import dev.countersign.executor.policy.EarnedTrust;
import dev.countersign.executor.policy.TenantPolicyRepository;
import dev.countersign.executor.telemetry.ActionTelemetry;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * Runs a confirmed action inside the caller's transaction, whoever confirmed it (a person's decision, or the tier rules
 * on arrival): the write is rebuilt from the stored parameters, which must still hash to what was approved; a refused
 * write rolls back alone (a savepoint) while the failure itself is recorded. A MEDIUM action a person confirmed counts
 * towards the requester's earned trust, in the same transaction.
 */
@ApplicationScoped
public class ActionExecution {

    private static final Logger LOG = Logger.getLogger(ActionExecution.class);
    private static final String SAVEPOINT = "execute_action";
    /** What a refused write rolls back to; public for the confirm benchmark's baseline. */
    public static final String SET_SAVEPOINT = "SAVEPOINT " + SAVEPOINT;

    private final ExecutorRegistry executors;
    private final ActionRepository actions;
    private final OutboxWriter outbox;
    private final TenantTransactions transactions;
    private final EarnedTrust trust;

    private final TenantPolicyRepository policies;
    private final Targets targets;
    private final ActionTelemetry telemetry;

    public ActionExecution(ExecutorRegistry executors, ActionRepository actions, OutboxWriter outbox,
            TenantTransactions transactions, EarnedTrust trust, TenantPolicyRepository policies,
            Targets targets, ActionTelemetry telemetry) {
        this.telemetry = telemetry;
        this.policies = policies;
        this.targets = targets;
        this.executors = executors;
        this.actions = actions;
        this.outbox = outbox;
        this.transactions = transactions;
        this.trust = trust;
    }

    /** Executes {@code confirmed}; a refusal is recorded as the action's failure, not thrown. */
    public Uni<DecisionOutcome> run(SqlClient sql, ActionRow confirmed) {
        return telemetry.execution(confirmed, () -> execute(sql, confirmed));
    }

    private Uni<DecisionOutcome> execute(SqlClient sql, ActionRow confirmed) {
        if (!paramsStillMatch(confirmed)) {
            return fail(sql, confirmed, ErrorCode.PARAMS_MISMATCH,
                    "the stored parameters no longer match the approved hash");
        }
        if (executors.externalFor(confirmed.kind()).isPresent()) {
            return claim(sql, confirmed);
        }
        ActionExecutor executor = executors.forKind(confirmed.kind()).orElse(null);
        if (executor == null) {
            // Staging rejects such kinds; this is reached only by an action staged by a build that could run it.
            return fail(sql, confirmed, ErrorCode.KIND_NOT_SUPPORTED, "this executor cannot run " + confirmed.kind());
        }
        // The savepoint goes with the write's first statement (pipelined); a refused write rolls back to it.
        return Pipelining.sendWithoutWaiting(sql.query(SET_SAVEPOINT).execute(), () -> write(sql, confirmed, executor))
                .map(executed -> (DecisionOutcome) new DecisionOutcome.Executed(executed))
                .onFailure(ExecutionRefused.class).recoverWithUni(refused -> sql
                        .query("ROLLBACK TO SAVEPOINT " + SAVEPOINT).execute()
                        .flatMap(ignored -> fail(sql, confirmed, ((ExecutionRefused) refused).code(),
                                refused.getMessage())));
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
     * The one write path of a confirmed action: its executor, then confirmed -> executed, the requester's trust, then
     * the outbox event. An {@link ExecutionRefused} propagates (the caller decides whether the whole transaction or
     * only this action fails).
     */
    public Uni<ActionRow> write(SqlClient sql, ActionRow confirmed, ActionExecutor executor) {
        return executor.execute(sql, confirmed)
                .flatMap(result -> actions.markExecuted(sql, confirmed.id(), result))
                // Logged inside the execution's span; the transaction commits after it (or rolls back, rarely).
                .invoke(executed -> LOG.infof(
                        "Action %s of tenant %s (%s) written, executed as its transaction commits",
                        executed.id(), executed.tenantId(), executed.kind()))
                .flatMap(executed -> trust.executed(sql, executed).replaceWith(executed))
                .flatMap(executed -> outbox.append(sql, OutcomeEvents.executed(executed), executed)
                        .replaceWith(executed));
    }

    /** {@link #write} as an execution span of the action's trace, for a batch member (a batch runs no {@link #run}). */
    public Uni<ActionRow> writeTraced(SqlClient sql, ActionRow confirmed, ActionExecutor executor) {
        return telemetry.execution(confirmed, () -> write(sql, confirmed, executor));
    }

    Uni<DecisionOutcome> fail(SqlClient sql, ActionRow action, ErrorCode code, String reason) {
        LOG.warnf("Action %s of tenant %s failed: %s", action.id(), action.tenantId(), code.code());
        JsonNode result = ActionResults.error(code, reason);
        return transactions.because(sql, code.code())
                .flatMap(ignored -> actions.markFailed(sql, action.id(), result))
                .flatMap(failed -> outbox.append(sql, OutcomeEvents.failed(failed, code, reason), failed)
                        .replaceWith((DecisionOutcome) new DecisionOutcome.Failed(failed, code)));
    }
}
