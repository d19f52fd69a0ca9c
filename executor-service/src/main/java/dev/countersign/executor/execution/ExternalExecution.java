package dev.countersign.executor.execution;

import java.time.Duration;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.access.Channel;
import dev.countersign.executor.access.DecisionRule;
import dev.countersign.executor.access.Operation;
import dev.countersign.executor.access.Principal;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.DecisionOutcome;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.external.egress.ExternalGate;
import dev.countersign.executor.external.egress.GateScope;
import dev.countersign.executor.kind.CallRefused;
import dev.countersign.executor.kind.ExternalKind;
import dev.countersign.executor.lifecycle.ActionLifecycle;
import dev.countersign.executor.lifecycle.ActionResults;
import dev.countersign.executor.outbox.OutboxRelay;
import dev.countersign.executor.outbox.OutcomeEvents;
import dev.countersign.web.ProblemException;
import io.smallrye.mutiny.Uni;

/**
 * Claim, call, record: the call of an action already claimed ({@code executing}, committed by the confirming
 * transaction) is made inside a gate scope with no database lock held, then its outcome is recorded in a transaction of
 * its own with a compare-and-swap from {@code executing}:
 * <ul>
 * <li>an answer: {@code executed} with the vendor's result;</li>
 * <li>a refusal, or a call that never left ({@link CallRefused}): {@code failed};</li>
 * <li>no answer (a timeout, a broken connection, a 5xx): the call is repeated with the same idempotency key while the
 * executor allows ({@link ExternalKind#attempts()}, more than one only where the vendor deduplicates); still no answer:
 * {@code needs_review}, and a person checks the vendor.</li>
 * </ul>
 * If this instance dies between the call and the record, the action stays {@code executing} and
 * {@link ExternalRecovery} finds it. Limit: exactly once holds for this database's record; at the vendor it is at most
 * once for e-mail (never repeated without a person) and exactly once for a vendor that honours the key.
 */
@ApplicationScoped
public class ExternalExecution {

    public static final String CHANNEL = "external";
    /** The longest wait between two calls of one execution. */
    static final Duration MAX_BACK_OFF = Duration.ofSeconds(2);
    private static final Logger LOG = Logger.getLogger(ExternalExecution.class);

    private final ExecutorRegistry executors;
    private final ExternalGate gate;
    private final TenantTransactions transactions;
    private final ActionRepository actions;
    private final ActionLifecycle lifecycle;
    private final OutboxRelay relay;

    public ExternalExecution(ExecutorRegistry executors, ExternalGate gate, TenantTransactions transactions,
            ActionRepository actions, ActionLifecycle lifecycle, OutboxRelay relay) {
        this.executors = executors;
        this.gate = gate;
        this.transactions = transactions;
        this.actions = actions;
        this.lifecycle = lifecycle;
        this.relay = relay;
    }

    /** What a call came to. */
    sealed interface CallOutcome {

        record Done(JsonNode result) implements CallOutcome {
        }

        record Refused(ErrorCode code, String reason) implements CallOutcome {
        }

        record Unknown(String reason) implements CallOutcome {
        }
    }

    /**
     * Calls and records. Never fails: if even the record cannot be written, the action stays {@code executing} for the
     * recovery, and the answer says so ({@link DecisionOutcome.Claimed}).
     */
    public Uni<DecisionOutcome> callAndRecord(ActionRow executing) {
        ExternalKind executor = executors.externalFor(executing.kind()).orElseThrow();
        return gate.open(executing, executor)
                .flatMap(scope -> call(executor, executing, scope).eventually(scope::close))
                .flatMap(outcome -> record(executing, ActionStatus.EXECUTING, outcome, executing.confirmedBy(),
                        CHANNEL))
                .onFailure().recoverWithItem(failure -> {
                    LOG.errorf("Could not record the external call of action %s (%s); it stays executing for the"
                            + " recovery", executing.id(), failure.getMessage());
                    return new DecisionOutcome.Claimed(executing);
                });
    }

    private static Uni<CallOutcome> call(ExternalKind executor, ActionRow action, GateScope scope) {
        Uni<JsonNode> call = Uni.createFrom().deferred(() -> executor.call(action, scope));
        if (executor.attempts() > 1) {
            call = call.onFailure(failure -> !(failure instanceof CallRefused)).retry()
                    .withBackOff(Duration.ofMillis(200), MAX_BACK_OFF).atMost(executor.attempts() - 1L);
        }
        return call.map(result -> (CallOutcome) new CallOutcome.Done(result))
                .onFailure(CallRefused.class).recoverWithItem(refused -> new CallOutcome.Refused(
                        ((CallRefused) refused).code(), refused.getMessage()))
                .onFailure().recoverWithItem(unknown -> new CallOutcome.Unknown("no answer from the vendor after %d"
                        .formatted(executor.attempts()) + " call(s) (" + describe(unknown)
                        + "); it may or may not have acted: check it before resolving"));
    }

    private static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }

    /**
     * Records {@code outcome} with a compare-and-swap from {@code from}; if another instance moved the action first,
     * answers its current state and changes nothing.
     */
    Uni<DecisionOutcome> record(ActionRow action, ActionStatus from, CallOutcome outcome, String actor,
            String channel) {
        return transactions.run(new Actor(action.tenantId(), actor, channel, reasonOf(outcome)), sql -> {
            ActionStatus to;
            JsonNode result;
            if (outcome instanceof CallOutcome.Done done) {
                to = ActionStatus.EXECUTED;
                result = done.result();
            } else if (outcome instanceof CallOutcome.Refused refused) {
                to = ActionStatus.FAILED;
                result = ActionResults.error(refused.code(), refused.reason());
            } else {
                to = ActionStatus.NEEDS_REVIEW;
                result = ActionResults.error(ErrorCode.OUTCOME_UNKNOWN, ((CallOutcome.Unknown) outcome).reason());
            }
            return lifecycle.callRecorded(sql, action, from, to, result, recorded -> event(recorded, outcome))
                    .flatMap(recorded -> {
                        if (recorded == null) {
                            LOG.warnf("Action %s was moved by another instance before this outcome was recorded",
                                    action.id());
                            return actions.find(sql, action.id(), action.tenantId())
                                    .map(current -> (DecisionOutcome) new DecisionOutcome.NotProposed(current));
                        }
                        return Uni.createFrom().item(answer(recorded, outcome));
                    });
        }).invoke(relay::wakeUp);
    }

    private static String reasonOf(CallOutcome outcome) {
        if (outcome instanceof CallOutcome.Refused refused) {
            return refused.code().code();
        }
        return outcome instanceof CallOutcome.Unknown ? ErrorCode.OUTCOME_UNKNOWN.code() : "";
    }

    private static ActionOutcome event(ActionRow recorded, CallOutcome outcome) {
        if (outcome instanceof CallOutcome.Done) {
            return OutcomeEvents.executed(recorded);
        }
        if (outcome instanceof CallOutcome.Refused refused) {
            return OutcomeEvents.failed(recorded, refused.code(), refused.reason());
        }
        return OutcomeEvents.needsReview(recorded, ((CallOutcome.Unknown) outcome).reason());
    }

    private static DecisionOutcome answer(ActionRow recorded, CallOutcome outcome) {
        if (outcome instanceof CallOutcome.Done) {
            return new DecisionOutcome.Executed(recorded);
        }
        if (outcome instanceof CallOutcome.Refused refused) {
            return new DecisionOutcome.Failed(recorded, refused.code());
        }
        return new DecisionOutcome.NeedsReview(recorded);
    }

    /**
     * A person checked the vendor and says what happened to an action in {@code needs_review}: executed (it did act) or
     * failed (it did not). Nothing is called again.
     */
    public Uni<ActionRow> resolve(UUID actionId, String tenantId, Principal who, Channel via, boolean executed,
            String note) {
        String userId = who.userId();
        return transactions.read(tenantId, sql -> actions.find(sql, actionId, tenantId)).flatMap(action -> {
            if (action == null) {
                throw new ProblemException(ErrorCode.ACTION_NOT_FOUND, "No such action in your tenant.");
            }
            DecisionRule.require(who, Operation.RESOLVE, action.tier(), action.requesterFor(who.userId()),
                    action.targetOwner(), via,
                    "resolve this action");
            if (action.status() != ActionStatus.NEEDS_REVIEW) {
                throw new ProblemException(ErrorCode.INVALID_STATE_TRANSITION,
                        "Only an action waiting for review can be resolved; this one is %s."
                                .formatted(action.status().wireName()),
                        action.toView());
            }
            ObjectNode result = Json.mapper().createObjectNode().put("resolvedBy", userId).put("note", note);
            result.set("review", action.result());
            CallOutcome outcome = executed
                    ? new CallOutcome.Done(result)
                    : new CallOutcome.Refused(ErrorCode.NOT_CARRIED_OUT, "a person checked the vendor: " + note);
            return record(action, ActionStatus.NEEDS_REVIEW, outcome, userId, TenantTransactions.HTTP).map(decided -> {
                if (decided instanceof DecisionOutcome.NotProposed moved) {
                    throw new ProblemException(ErrorCode.INVALID_STATE_TRANSITION,
                            "Someone resolved this action first.", moved.action().toView());
                }
                return decided instanceof DecisionOutcome.Executed done
                        ? done.action()
                        : ((DecisionOutcome.Failed) decided).action();
            });
        });
    }
}
