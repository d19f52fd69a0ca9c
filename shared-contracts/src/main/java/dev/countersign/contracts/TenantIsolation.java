package dev.countersign.contracts;

/**
 * The database's tenant fence, shared by both services: every table holding a tenant's rows has a row-level security
 * policy (executor migration V7) that shows and accepts only rows whose {@code tenant_id} equals this setting. A
 * transaction names its tenant first with {@code SELECT set_config(SETTING, tenantId, true)}; a transaction that names
 * none sees no rows.
 */
public final class TenantIsolation {

    public static final String SETTING = "countersign.tenant_id";

    /**
     * The SQL expression that names the transaction's tenant, bound to {@code parameter} ({@code $1} for the reactive
     * client, {@code ?} for JDBC).
     */
    public static String setTenant(String parameter) {
        return "set_config('" + SETTING + "', " + parameter + ", true)";
    }

    private TenantIsolation() {
    }
}
