-- Statistics for plan mode (issue 17, part 3). PostgreSQL shows nothing in pg_stats for a table under row-level
-- security, and pg_class.reltuples counts every tenant's rows, so for the shipped tables (wallets, transactions) plan
-- mode had no estimates at all. plan_statistics() hands the caller, for the tenant its transaction named, estimates
-- read from the catalog only: it reads no user table (no COUNT, no scan of any kind) but the caller's own reader grant
-- (one index lookup, to know its tenant: R__current_tenant.sql), and returns no column value.
--
-- What it describes: a table or partitioned table (not a partition) that
--   * has row-level security enabled and whose every SELECT policy is the tenant rule of V7, permissive, for PUBLIC:
--     USING (tenant_id = current_tenant()). Then the rows a caller in tenant T may see are exactly T's rows, so T's row
--     estimate tells the caller nothing it could not count itself. Any other policy (per user, restrictive, for some
--     roles only) makes the visible rows a different set, and an estimate of T's rows could count rows the caller may
--     not see: such a table is left out. A table without row-level security is left out too: the caller already reads
--     its reltuples and pg_stats rows directly, and "the tenant's rows" means nothing there.
--   * the CALLER may SELECT: at least one column for the table to be described, and each column only if the caller may
--     SELECT that column; USAGE on its schema. Inside a SECURITY DEFINER function current_user is the owner, who may
--     read everything, so every privilege is checked for session_user, the role that logged in. A session that switched
--     role (SET ROLE) is judged as its login role; that reveals nothing, since RESET ROLE gives that session the login
--     role's privileges anyway. So grant EXECUTE only to roles that log in as themselves (the reader role now, a
--     dedicated plan role later), never to a group role whose members log in under other names.
--
-- What it returns, one row per column the caller may read, with its table's estimate repeated on each row:
--   tenant_rows_estimate: the planner's estimate for WHERE tenant_id = <tenant>, never the table's reltuples:
--     * the tenant among tenant_id's most common values: its frequency times reltuples, which is the tenant's own row
--       count as of the last ANALYZE (exact when ANALYZE sampled the whole table, at most 30,000 rows by default);
--     * otherwise the planner's rule for a value outside that list, the rows outside it spread evenly over the other
--       distinct tenants, but only when that spreads them over at least 10 tenants (below that, an average of a few
--       tenants is close to a count of another tenant's rows: NULL). The planner would also cap this at the least
--       common listed tenant's frequency; that cap would be another tenant's row count, so it is not applied.
--     * NULL, "unknown", when the table was never analysed (reltuples -1 since PostgreSQL 14) or has no statistics for
--       tenant_id (analysed while empty, or vacuumed but never analysed). Never 0 for lack of statistics.
--     This, not EXPLAIN of SELECT 1 FROM t WHERE tenant_id = $1 run here, because the planner scales reltuples by the
--     table's current size on disk: its estimate for one tenant grew from 20 to 39 when another tenant inserted 5,000
--     rows, with no ANALYZE in between (measured on PostgreSQL 17), so it would show another tenant's writes as they
--     happen. This estimate moves only when ANALYZE or VACUUM updates the statistics.
--   null_frac, n_distinct: pg_stats' whole-table figures, n_distinct as PostgreSQL stores it (positive: a count;
--     negative: minus the fraction of rows that are distinct; 0: unknown), except that
--     * a positive n_distinct is capped at tenant_rows_estimate (the tenant cannot have more distinct values than rows);
--     * both are NULL for tenant_id (its n_distinct is the number of tenants) and whenever tenant_rows_estimate is
--       NULL (then the tenant is too small to be told apart, and the figures would describe mostly other tenants).
--     most_common_vals, histogram_bounds and the other sample columns are read only to find the tenant's frequency
--     (tenant_id's list) and are never returned.
--
-- What crosses tenants, and why it is accepted: the row estimate is the tenant's own, or an average over at least 10
-- tenants. null_frac and n_distinct are whole-table: a tenant learns the share of NULLs in a column and how varied its
-- values are across all tenants' rows, and, for a column that counts objects of each tenant (transactions.wallet_id),
-- the table's number of such objects up to its own row estimate. With few tenants, or one dominant tenant, these
-- approximate another tenant's shape of data. They are never a value, never a row count of another tenant, never whose;
-- the planner itself plans every tenant's statements from the same figures. A column whose shape must stay private
-- should not be readable by the role (the function follows column grants). VACUUM and autovacuum update reltuples
-- between analyses, so a tenant's estimate can drift with the whole table's growth until the next ANALYZE.
--
-- No tenant named in the transaction: refused by current_tenant() (R__current_tenant.sql). The function is as strong as that setting: a
-- caller that names tenant T learns no more about T than it could count under row-level security itself.
-- Estimates come from pg_stats read as the owner (pg_statistic needs a superuser): a table under FORCE ROW LEVEL
-- SECURITY, or not owned by this function's owner, has no visible statistics and reads as unknown.
-- CREATE OR REPLACE resets what it does not say: SECURITY DEFINER, STABLE and the search_path are all said here.
CREATE OR REPLACE FUNCTION plan_statistics()
    RETURNS TABLE (relid oid, schema_name text, relation_name text, column_name text,
                   tenant_rows_estimate double precision, null_frac double precision, n_distinct double precision)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH caller AS MATERIALIZED (SELECT current_tenant() AS tenant),
    described AS (
        SELECT c.oid, n.nspname, c.relname, c.relkind, c.reltuples::float8 AS reltuples, caller.tenant
        FROM caller, pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE caller.tenant IS NOT NULL
          AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relrowsecurity
          AND has_schema_privilege(session_user, n.oid, 'USAGE')
          AND has_any_column_privilege(session_user, c.oid, 'SELECT')
          AND EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polcmd IN ('r', '*'))
          AND NOT EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polcmd IN ('r', '*')
                          AND NOT (p.polpermissive AND p.polroles = '{0}'
                                   AND pg_get_expr(p.polqual, p.polrelid) = '(tenant_id = current_tenant())'))),
    keyed AS (
        SELECT d.*, s.most_common_vals::text::text[] AS tenants_listed, s.most_common_freqs AS freqs,
               s.null_frac AS key_nulls,
               CASE WHEN s.n_distinct >= 0 THEN s.n_distinct ELSE -s.n_distinct * d.reltuples END AS tenants
        FROM described d
        LEFT JOIN pg_stats s ON s.schemaname = d.nspname AND s.tablename = d.relname AND s.attname = 'tenant_id'
                              AND s.inherited = (d.relkind = 'p')),
    estimated AS (
        SELECT k.oid, k.nspname, k.relname, k.relkind,
               CASE
                   WHEN k.reltuples < 0 OR k.tenants IS NULL THEN NULL
                   WHEN array_position(k.tenants_listed, k.tenant) IS NOT NULL
                       THEN k.freqs[array_position(k.tenants_listed, k.tenant)] * k.reltuples
                   WHEN k.tenants - coalesce(cardinality(k.tenants_listed), 0) >= 10
                       THEN greatest(0, 1 - k.key_nulls - coalesce((SELECT sum(f) FROM unnest(k.freqs) f), 0))
                            / (k.tenants - coalesce(cardinality(k.tenants_listed), 0)) * k.reltuples
               END AS estimate
        FROM keyed k)
    SELECT e.oid, e.nspname::text, e.relname::text, a.attname::text, e.estimate,
           CASE WHEN e.estimate IS NOT NULL AND a.attname <> 'tenant_id' THEN s.null_frac END,
           CASE WHEN e.estimate IS NULL OR a.attname = 'tenant_id' THEN NULL
                WHEN s.n_distinct > 0 THEN least(s.n_distinct, e.estimate)
                ELSE s.n_distinct END
    FROM estimated e
    JOIN pg_attribute a ON a.attrelid = e.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_stats s ON s.schemaname = e.nspname AND s.tablename = e.relname AND s.attname = a.attname
                          AND s.inherited = (e.relkind = 'p')
    WHERE has_column_privilege(session_user, e.oid, a.attnum, 'SELECT')
    ORDER BY e.nspname, e.relname, a.attnum
$$;

REVOKE ALL ON FUNCTION plan_statistics() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION plan_statistics() TO ${readerRole};
