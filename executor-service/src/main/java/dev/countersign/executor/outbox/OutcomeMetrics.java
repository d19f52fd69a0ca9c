package dev.countersign.executor.outbox;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.events.ActionCancelled;
import dev.countersign.contracts.events.ActionExecuted;
import dev.countersign.contracts.events.ActionExpired;
import dev.countersign.contracts.events.ActionFailed;
import dev.countersign.contracts.events.ActionNeedsReview;
import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.contracts.events.ActionRejected;
import dev.countersign.contracts.events.ActionStaged;
import dev.countersign.contracts.events.ActionSuperseded;
import dev.countersign.contracts.events.ActionUndone;
import dev.countersign.executor.action.ActionRow;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Counts the outcomes {@link OutboxWriter} appends, as exposed at {@code /q/metrics}:
 * {@code countersign_actions_total{kind,tier,status}} (status: proposed, executed, failed, cancelled, expired, undone,
 * needs_review), {@code countersign_actions_auto_applied_total{kind}},
 * {@code countersign_proposals_rejected_total{reason}} and the histogram
 * {@code countersign_action_confirm_to_executed_seconds{kind}} (confirmed_at to executed_at of the executed row).
 * <p>
 * Limits: counted after the commit of the transaction that appended the outcome (see
 * {@code TenantTransactions.afterCommit}), so rolled-back work is not counted; a crash between commit and count loses
 * counts, the outbox and the history keep the facts. Counts are per instance (the monitoring system sums replicas) and
 * start at zero on every start. Labels are catalogue kinds, tiers, statuses and error codes only: tenants, users and
 * free text would make the series unbounded.
 */
@ApplicationScoped
public class OutcomeMetrics {

    static final String ACTIONS = "countersign.actions";
    static final String AUTO_APPLIED = "countersign.actions.auto_applied";
    static final String REJECTED = "countersign.proposals.rejected";
    static final String CONFIRM_TO_EXECUTED = "countersign.action.confirm_to_executed";

    private final MeterRegistry registry;

    public OutcomeMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Counts the move {@code event} announces of {@code row} (null for a rejected proposal, which stored no row). */
    void count(ActionOutcome event, ActionRow row) {
        if (event instanceof ActionRejected rejected) {
            registry.counter(REJECTED, "reason", rejected.code()).increment();
            return;
        }
        if (row == null) {
            return;
        }
        ActionStatus status = statusOf(event);
        registry.counter(ACTIONS, "kind", row.kind(), "tier", row.tier().wireName(), "status", status.wireName())
                .increment();
        if (event instanceof ActionExecuted executed) {
            if (ActionExecuted.AUTO_APPLIER.equals(executed.confirmedBy())) {
                registry.counter(AUTO_APPLIED, "kind", row.kind()).increment();
            }
            if (row.confirmedAt() != null && row.executedAt() != null) {
                Timer.builder(CONFIRM_TO_EXECUTED)
                        .description("Time from an action's confirmation to its execution")
                        .tag("kind", row.kind())
                        .publishPercentileHistogram()
                        .register(registry)
                        .record(Duration.between(row.confirmedAt(), row.executedAt()));
            }
        }
    }

    private static ActionStatus statusOf(ActionOutcome event) {
        if (event instanceof ActionStaged) {
            return ActionStatus.PROPOSED;
        } else if (event instanceof ActionExecuted) {
            return ActionStatus.EXECUTED;
        } else if (event instanceof ActionFailed) {
            return ActionStatus.FAILED;
        } else if (event instanceof ActionCancelled) {
            return ActionStatus.CANCELLED;
        } else if (event instanceof ActionExpired) {
            return ActionStatus.EXPIRED;
        } else if (event instanceof ActionUndone) {
            return ActionStatus.UNDONE;
        } else if (event instanceof ActionNeedsReview) {
            return ActionStatus.NEEDS_REVIEW;
        } else if (event instanceof ActionSuperseded) {
            return ActionStatus.SUPERSEDED;
        }
        throw new IllegalArgumentException("no status for " + event.getClass().getSimpleName());
    }
}
