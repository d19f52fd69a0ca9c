package dev.countersign.devsupport.testing.fuzz;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A checksum of every table of the domain schema ({@code public}, Flyway's history aside), table by table, read as the
 * schema owner (no row-level security): two equal checksums mean no row was added, changed or removed.
 * <p>
 * Other test classes share the database and the running service (its expiry sweeper and outbox relay keep working on
 * their rows), so the checksum leaves out the rows of the tenants that already had rows when it was first taken, except
 * the tenants the fuzz itself uses: a write to a fuzz tenant, to a tenant an input made up, or to a table without a
 * tenant column still changes it.
 */
public final class DomainChecksum {

    private final Set<String> excludedTables;
    private final Map<String, String> excludedRows;
    private final Set<String> otherTestsTenants;

    private DomainChecksum(Set<String> excludedTables, Map<String, String> excludedRows,
            Set<String> otherTestsTenants) {
        this.excludedTables = excludedTables;
        this.excludedRows = excludedRows;
        this.otherTestsTenants = otherTestsTenants;
    }

    public static DomainChecksum startingNow(Connection owner, Set<String> excludedTables, Set<String> fuzzTenants)
            throws SQLException {
        return startingNow(owner, excludedTables, Map.of(), fuzzTenants);
    }

    /**
     * @param excludedTables
     *            tables that legitimately record rejected inputs (say which and why where they are named)
     * @param excludedRows
     *            per table, an SQL condition on its rows ({@code t}) that leaves them out: rows that legitimately
     *            record rejected inputs in a table that must otherwise stay unchanged (say why where they are named)
     * @param fuzzTenants
     *            tenants whose rows are always checked
     */
    public static DomainChecksum startingNow(Connection owner, Set<String> excludedTables,
            Map<String, String> excludedRows, Set<String> fuzzTenants) throws SQLException {
        Set<String> tenants = new LinkedHashSet<>();
        for (String table : tablesWithTenants(owner)) {
            try (var rows = owner.createStatement()
                    .executeQuery("SELECT DISTINCT tenant_id FROM " + table + " WHERE tenant_id IS NOT NULL")) {
                while (rows.next()) {
                    tenants.add(rows.getString(1));
                }
            }
        }
        tenants.removeAll(fuzzTenants);
        return new DomainChecksum(Set.copyOf(excludedTables), Map.copyOf(excludedRows), Set.copyOf(tenants));
    }

    /** Per table, the row count and an md5 over its rows in a stable order. */
    public Map<String, String> take(Connection owner) throws SQLException {
        Set<String> withTenants = Set.copyOf(tablesWithTenants(owner));
        Map<String, String> sums = new TreeMap<>();
        for (String table : tables(owner)) {
            if (excludedTables.contains(table)) {
                continue;
            }
            boolean byTenant = withTenants.contains(table);
            String where = " WHERE " + (byTenant ? "(tenant_id IS NULL OR NOT (tenant_id = ANY (?)))" : "true")
                    + (excludedRows.containsKey(table) ? " AND NOT (" + excludedRows.get(table) + ")" : "");
            try (var query = owner.prepareStatement("SELECT count(*) || ':' || md5(coalesce(string_agg(md5(t::text),"
                    + " ',' ORDER BY md5(t::text)), '')) FROM " + table + " t" + where)) {
                if (byTenant) {
                    query.setArray(1, owner.createArrayOf("text", otherTestsTenants.toArray()));
                }
                try (var rows = query.executeQuery()) {
                    rows.next();
                    sums.put(table, rows.getString(1));
                }
            }
        }
        return sums;
    }

    private static List<String> tables(Connection owner) throws SQLException {
        return names(owner, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
                + " AND table_type = 'BASE TABLE' AND table_name <> 'flyway_schema_history' ORDER BY 1");
    }

    private static List<String> tablesWithTenants(Connection owner) throws SQLException {
        return names(owner, "SELECT c.table_name FROM information_schema.columns c JOIN information_schema.tables t"
                + " USING (table_schema, table_name) WHERE c.table_schema = 'public' AND c.column_name = 'tenant_id'"
                + " AND t.table_type = 'BASE TABLE' AND c.table_name <> 'flyway_schema_history' ORDER BY 1");
    }

    private static List<String> names(Connection owner, String sql) throws SQLException {
        List<String> names = new ArrayList<>();
        try (var rows = owner.createStatement().executeQuery(sql)) {
            while (rows.next()) {
                names.add(rows.getString(1));
            }
        }
        return names;
    }
}
