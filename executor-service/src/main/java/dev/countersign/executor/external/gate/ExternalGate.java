package dev.countersign.executor.external.gate;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.countersign.executor.action.ActionRow;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The runtime gate of external writes. The only code holding the raw mail and HTTP clients ({@link GatedMailer},
 * {@link GatedHttp}) asks the gate before every call; the gate lets a call through only inside a scope it opened for an
 * action the executor has claimed ({@code executing}). A call outside a scope throws and raises an administrator alert:
 * an ERROR log line starting {@code ALERT} and the counter {@code countersign_external_ungated_calls_total}.
 * <p>
 * Limit: the gate checks that a scope is open, not which vendor the call goes to; which client an executor uses is
 * fixed by its code, and an architecture test keeps the raw clients inside this package.
 */
@ApplicationScoped
public class ExternalGate {

    private static final Logger LOG = Logger.getLogger(ExternalGate.class);

    private final Counter ungated;

    public ExternalGate(MeterRegistry registry) {
        this.ungated = Counter.builder("countersign.external.ungated.calls")
                .description("External calls attempted outside a gate scope (refused); each one is a bug to look at")
                .register(registry);
    }

    /** A scope for {@code claimed}'s call; the caller closes it once the outcome is recorded. */
    public GateScope open(ActionRow claimed) {
        return new GateScope(claimed.id(), claimed.tenantId());
    }

    /** Throws unless {@code scope} is open; {@code what} names the client for the alert. */
    void check(GateScope scope, String what) {
        if (scope == null || !scope.isOpen()) {
            ungated.increment();
            String action = scope == null ? "none" : scope.actionId() + " (tenant " + scope.tenantId() + ", closed)";
            LOG.errorf("ALERT ungated external call refused: %s call outside a gate scope; action %s", what, action);
            throw new UngatedCallException(what + " call refused: not inside a gate scope");
        }
    }
}
