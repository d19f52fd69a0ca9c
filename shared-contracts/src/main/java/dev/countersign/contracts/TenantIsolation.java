package dev.countersign.contracts;

/**
 * The database's tenant fence, shared by both services: every table holding a tenant's rows has a row-level security
 * policy (executor migration V7) that shows and accepts only rows of {@code current_tenant()} (R__current_tenant.sql).
 * For executor-service's role that is the tenant its transaction names first with
 * {@code SELECT set_config(SETTING, tenantId, true)}; a transaction that names none is refused. Every other role (the
 * agent's) cannot name a tenant that way: its transaction names a reader grant ({@link #GRANT_SETTING}), minted by the
 * executor for one signed-in person, and sees that grant's tenant, and that person's own per-person rows only.
 */
public final class TenantIsolation {

    public static final String SETTING = "countersign.tenant_id";

    /** The reader grant's secret a session of the agent's roles names; the only tenant context such a session has. */
    public static final String GRANT_SETTING = "countersign.reader_grant";

    /**
     * The SQL expression that names the transaction's tenant, bound to {@code parameter} ({@code $1} for the reactive
     * client, {@code ?} for JDBC).
     */
    public static String setTenant(String parameter) {
        return "set_config('" + SETTING + "', " + parameter + ", true)";
    }

    /**
     * The SQL expression that names the transaction's reader grant, bound to {@code parameter} (a function of the
     * executor's migrations, R__reader_grants.sql: the plan role may not execute set_config itself).
     */
    public static String useGrant(String parameter) {
        return "use_reader_grant(" + parameter + ")";
    }

    private TenantIsolation() {
    }
}
