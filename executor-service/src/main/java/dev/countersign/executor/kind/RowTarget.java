package dev.countersign.executor.kind;

/**
 * The existing row an action changes: staging reads it (its version and the fields a person is shown, named as the
 * catalogue names the parameters, so the page pairs them), and the gate explains a guarded write that matched no row
 * ({@code target_not_found} or {@code target_changed}) by reading it again.
 *
 * @param idParam
 *            the parameter holding the row's id (a UUID)
 * @param noun
 *            what a person calls the row ("wallet"), for refusals
 * @param requestersOwn
 *            the row must be the requester's own: the query takes the requester as {@code $3}
 * @param query
 *            answers {@code version} (bigint) and {@code fields} (a JSON object as text) for {@code $1} the id and
 *            {@code $2} the tenant (compared with {@code current_tenant()}); no row: the target does not exist
 */
public record RowTarget(String idParam, String noun, boolean requestersOwn, String query) {
}
