package dev.countersign.executor.kind;

/**
 * A kind's own check of a proposal at staging, beyond its declaration's parameters: a query that answers a row with
 * {@code refusal} (an error code of the API, e.g. {@code currency_mismatch}) and {@code reason} (words for the person)
 * to refuse it, or no row to let it stage. The proposal is then rejected with that code, nothing stored. It takes
 * {@code $1} the normalised parameters (JSON text) and {@code $2} the tenant (compare with {@code current_tenant()}).
 * The write checks again: a check at staging cannot see what changes before the confirm.
 */
public record StagingCheck(String query) {
}
