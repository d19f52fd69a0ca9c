package dev.countersign.executor.external.egress;

import java.util.UUID;

/**
 * Permission for one claimed action's external call, handed out by {@link ExternalGate#open} and closed when the call
 * is recorded. The raw mail and HTTP clients serve a request only inside an open scope; nothing outside this package
 * can make one.
 */
public final class GateScope implements AutoCloseable {

    private final UUID actionId;
    private final String tenantId;
    private volatile boolean open = true;

    GateScope(UUID actionId, String tenantId) {
        this.actionId = actionId;
        this.tenantId = tenantId;
    }

    public UUID actionId() {
        return actionId;
    }

    String tenantId() {
        return tenantId;
    }

    boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
    }
}
