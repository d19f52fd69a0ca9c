package dev.countersign.executor.external.egress;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;

/**
 * The alert of an external call the gate refused: an ERROR log line starting {@code ALERT} and the counter
 * {@code countersign_external_ungated_calls_total}. Each one is a bug to look at.
 */
// Created at start, so the alert's counter is exported at 0 before any call (an increase from a series that first
// appears at 1 is invisible to Prometheus's increase()).
@Startup
@ApplicationScoped
public class UngatedCalls {

    private static final Logger LOG = Logger.getLogger(UngatedCalls.class);

    private final Counter ungated;

    public UngatedCalls(MeterRegistry registry) {
        this.ungated = Counter.builder("countersign.external.ungated.calls")
                .description("External calls attempted outside a gate scope (refused); each one is a bug to look at")
                .register(registry);
    }

    /**
     * Raises the alert and answers the exception to throw: {@code what} was refused because {@code why} (outside a
     * scope, or beyond what the scope's kind declares).
     */
    UngatedCallException refuse(String what, String why) {
        ungated.increment();
        LOG.errorf("ALERT ungated external call refused: %s: %s", what, why);
        return new UngatedCallException(what + " refused: " + why);
    }

    /** Throws unless {@code scope} is open; {@code what} names the client for the alert. */
    void check(GateScope scope, String what) {
        if (scope == null || !scope.isOpen()) {
            throw refuse(what + " call", scope == null
                    ? "no scope"
                    : "scope of action " + scope.actionId() + " (tenant " + scope.tenantId() + ") is closed");
        }
    }
}
