package dev.countersign.executor.external.egress;

/**
 * A webhook destination the gate will not send to: not on the tenant's allow-list, or resolving to a private address.
 * Its message names the origin and the reason only (never the path, which may hold a credential), so it may be logged
 * and recorded.
 */
public final class RefusedDestination extends RuntimeException {

    private static final long serialVersionUID = 1L;

    RefusedDestination(String message) {
        super(message, null, false, false);
    }
}
