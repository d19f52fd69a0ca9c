package dev.countersign.executor.decision;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.DecisionOutcome;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counts confirmations by another user of the tenant than the one who asked, which are allowed and also recorded in
 * each action's history (reason "actor mismatch"). Exposed as {@code countersign_actions_actor_mismatch_total{kind}} at
 * {@code /q/metrics}.
 * <p>
 * Limits: counted after the commit, per instance (the monitoring system sums instances); a crash between commit and
 * count loses one count, the history keeps the fact. Tagged by action kind only: tenants and users would make the
 * series unbounded.
 */
@ApplicationScoped
public class ActorMismatches {

    static final String METRIC = "countersign.actions.actor_mismatch";

    private final MeterRegistry registry;

    public ActorMismatches(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Counts {@code decided} if it was confirmed, and by someone else than its requester. */
    void countConfirmed(ActionRow decided) {
        if (decided.confirmedBy() != null && !decided.confirmedBy().equals(decided.requestedBy())) {
            registry.counter(METRIC, "kind", decided.kind()).increment();
        }
    }

    void count(DecisionOutcome outcome) {
        if (outcome instanceof DecisionOutcome.Executed executed) {
            countConfirmed(executed.action());
        } else if (outcome instanceof DecisionOutcome.Failed failed) {
            countConfirmed(failed.action());
        }
    }
}
