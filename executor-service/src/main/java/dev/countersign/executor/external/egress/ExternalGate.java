package dev.countersign.executor.external.egress;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.db.TenantTransactions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;

/**
 * The runtime gate of external writes. The only code holding the raw mail and HTTP clients ({@link GatedMailer},
 * {@link GatedHttp}) asks the gate before every call; the gate lets a call through only inside a scope it opened for an
 * action the database shows claimed ({@code executing}). A call outside a scope throws and raises an administrator
 * alert: an ERROR log line starting {@code ALERT} and the counter {@code countersign_external_ungated_calls_total}.
 * <p>
 * Limit: the gate checks that a scope is open, not what the call carries; {@link GatedHttp} reaches only the configured
 * ticket system's origin, and an architecture test keeps the raw clients inside this package and the opening of scopes
 * in {@code ExternalExecution}.
 */
// Created at start, so the alert's counter is exported at 0 before any call (an increase from a series that first
// appears at 1 is invisible to Prometheus's increase()).
@Startup
@ApplicationScoped
public class ExternalGate {

    private static final Logger LOG = Logger.getLogger(ExternalGate.class);

    private final Counter ungated;
    private final TenantTransactions transactions;
    private final ActionRepository actions;

    public ExternalGate(MeterRegistry registry, TenantTransactions transactions, ActionRepository actions) {
        this.transactions = transactions;
        this.actions = actions;
        this.ungated = Counter.builder("countersign.external.ungated.calls")
                .description("External calls attempted outside a gate scope (refused); each one is a bug to look at")
                .register(registry);
    }

    /**
     * A scope for the call of {@code claimed}, opened only if the database says the action is {@code executing} (its
     * claim committed); otherwise the alert is raised and the Uni fails with {@link UngatedCallException}. The caller
     * closes the scope once the call is over.
     */
    public Uni<GateScope> open(ActionRow claimed) {
        return transactions.read(claimed.tenantId(), sql -> actions.find(sql, claimed.id(), claimed.tenantId()))
                .map(current -> {
                    if (current == null || current.status() != ActionStatus.EXECUTING) {
                        throw refuse("scope for action " + claimed.id(), "not claimed (status "
                                + (current == null ? "unknown" : current.status().wireName()) + ")");
                    }
                    return new GateScope(claimed.id(), claimed.tenantId());
                });
    }

    /** Throws unless {@code scope} is open; {@code what} names the client for the alert. */
    void check(GateScope scope, String what) {
        if (scope == null || !scope.isOpen()) {
            throw refuse(what + " call", scope == null
                    ? "no scope"
                    : "scope of action " + scope.actionId()
                            + " (tenant " + scope.tenantId() + ") is closed");
        }
    }

    private UngatedCallException refuse(String what, String why) {
        ungated.increment();
        LOG.errorf("ALERT ungated external call refused: %s outside a gate scope: %s", what, why);
        return new UngatedCallException(what + " refused: not inside a gate scope (" + why + ")");
    }
}
