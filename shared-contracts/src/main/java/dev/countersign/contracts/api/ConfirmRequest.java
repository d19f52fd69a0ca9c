package dev.countersign.contracts.api;

/**
 * {@code POST /api/actions/{id}/confirm} (and {@code /cancel}) on executor-service.
 *
 * @param paramsHash
 *            required on a confirm: the hash of the parameters the person was shown (the card's {@code paramsHash});
 *            without it the confirm is refused ({@code params_hash_required}, nothing changes), and if it is not the
 *            stored hash nothing runs ({@code params_mismatch}). A cancel may leave it out.
 */
public record ConfirmRequest(String token, String paramsHash) {

    /** A cancel: refusing to run something needs no proof of what was shown. */
    public ConfirmRequest(String token) {
        this(token, null);
    }

    @Override
    public String toString() {
        return "ConfirmRequest[token=<redacted>]";
    }
}
