package dev.countersign.executor.kind;

/**
 * Whose row an action writes, as the decision rule reads it (a person may decide on their own rows; another person's
 * needs that person or an approver): the row named by a parameter and read by a query, always the requester's own, or
 * nobody's (the tenant's: a support case, a ticket).
 *
 * @param idParam
 *            the parameter holding the row's id; null with a null query
 * @param query
 *            answers {@code owner} for {@code $1} the id and {@code $2} the tenant; with a null {@code idParam}, for
 *            {@code $1} the parameters (JSON text), {@code $2} the tenant and {@code $3} the requester (a row named by
 *            two parameters, {@link #readFromParams}); null: see {@link #requesters()}
 * @param requesters
 *            the row is always the requester's own (a training plan)
 */
public record RowOwner(String idParam, String query, boolean requesters) {

    /** The row is read by {@code query} from the id in parameter {@code idParam}. */
    public static RowOwner readBy(String idParam, String query) {
        return new RowOwner(idParam, query, false);
    }

    /**
     * The owner read by {@code query} from all the parameters ({@code $1} as JSON text, {@code $2} the tenant,
     * {@code $3} the requester): for a kind whose rows are named by more than one parameter.
     */
    public static RowOwner readFromParams(String query) {
        return new RowOwner(null, query, false);
    }

    /** Always the requester's own row. */
    public static RowOwner requester() {
        return new RowOwner(null, null, true);
    }

    /** A row nobody owns. */
    public static RowOwner nobody() {
        return new RowOwner(null, null, false);
    }

    /** Whether a person owns the row at all. */
    public boolean isOwned() {
        return requesters || query != null;
    }
}
