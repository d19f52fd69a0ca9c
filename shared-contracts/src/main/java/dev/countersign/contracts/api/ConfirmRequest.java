package dev.countersign.contracts.api;

/**
 * {@code POST /api/actions/{id}/confirm} on executor-service.
 *
 * @param paramsHash
 *            optional: the hash of the parameters the person was shown; if it is not the stored hash, nothing runs
 *            ({@code params_mismatch})
 */
public record ConfirmRequest(String token, String paramsHash) {

    /** A confirm that does not say which parameters the person saw. */
    public ConfirmRequest(String token) {
        this(token, null);
    }

    @Override
    public String toString() {
        return "ConfirmRequest[token=<redacted>]";
    }
}
