package dev.countersign.contracts;

/**
 * Bearer token groups the executor checks (the {@code groups} claim). Any authenticated user of a tenant may read its
 * actions and decide the ones they asked for; the groups add the rest (an approver decides any action of the tenant).
 */
public final class Groups {

    /** Every person of a tenant. */
    public static final String USER = "user";
    /** May re-issue a confirm token for a still-open proposal. */
    public static final String APPROVER = "approver";
    /** May change the tenant's policies (agent writes switch, approvals for HIGH actions). */
    public static final String ADMIN = "admin";

    private Groups() {
    }
}
