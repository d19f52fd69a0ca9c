package dev.countersign.contracts.api;

/**
 * {@code POST /api/actions/{id}/confirm} (and {@code /cancel}) on executor-service. The authority to decide is the
 * signed-in person (a bearer token for the executor, or the executor's own browser session), not anything in the body:
 * the requester of the action or an approver of the tenant may decide it. A {@code token} field, which older clients
 * sent, is ignored.
 *
 * @param paramsHash
 *            required on a confirm: the hash of the parameters the person was shown (the action view's
 *            {@code paramsHash}); without it the confirm is refused ({@code params_hash_required}, nothing changes),
 *            and if it is not the stored hash nothing runs ({@code params_mismatch}). A cancel may leave it out.
 */
public record ConfirmRequest(String paramsHash) {
}
