package dev.countersign.contracts.api;

/** {@code POST /api/actions/{id}/confirm} on executor-service. */
public record ConfirmRequest(String token) {

    @Override
    public String toString() {
        return "ConfirmRequest[token=<redacted>]";
    }
}
