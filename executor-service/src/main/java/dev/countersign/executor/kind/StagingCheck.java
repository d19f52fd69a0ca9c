package dev.countersign.executor.kind;

/**
 * A kind's own check of a proposal at staging, beyond its declaration's parameters: a query that answers a row with
 * {@code refusal} (an error code of the API, e.g. {@code currency_mismatch}) and {@code reason} (words for the person)
 * to refuse it, or no row to let it stage (the first row counts). The proposal is then rejected with that code, nothing
 * stored. It may use {@code $1} the normalised parameters (JSON text), {@code $2} the tenant (compare with
 * {@code current_tenant()}) and {@code $3} the requester, each as text. Its reason reaches the model (the rejection is
 * an outcome event): it should not tell more about another person's rows than that the proposal is refused. The write
 * checks again: a check at staging cannot see what changes before the confirm.
 */
public record StagingCheck(String query) {
}
