-- Every row-level security policy compares a row's tenant_id with current_tenant(): the tenant the current transaction
-- named with its first statement (TenantSettings in the executor, TenantIsolation.setTenant in the agent), a
-- transaction-local setting.
--
-- A statement on a tenant's table in a transaction that named no tenant is refused (SQLSTATE CS401) instead of seeing
-- no rows. PostgreSQL evaluates current_tenant() while planning such a statement (for the policy's selectivity
-- estimate), so in practice even one on an empty table is refused, before privileges are checked; what this rule
-- guarantees by itself is weaker: refused at the latest when the statement meets a row. "No rows" is not safe: code that reads a missing row as "nothing set, use the defaults"
-- (a tenant's policies, its budgets) would answer the permissive defaults to a query that merely forgot to name its
-- tenant, for example a Panache repository called outside TenantSessions in an endpoint, where Quarkus opens a
-- session on demand. A pooled connection reads '' after an earlier transaction's setting ended: refused the same way.
--
-- Limits: this catches a tenant not named, not the wrong tenant named; a session that names tenant A and then asks for
-- tenant B's row still sees no row (RLS hides it), so callers pass the tenant they named. Functions that run as the
-- owner (SECURITY DEFINER: the relay, the expiry sweep) bypass row-level security and never call this. It is kept
-- inlinable (LANGUAGE sql, STABLE): the policy's comparison still drives index scans, and the plpgsql raise below runs
-- only when no tenant is named.
--
-- V7 created the first form of current_tenant() because its policies need it while the migration runs; this file is
-- where its rule lives now.
CREATE OR REPLACE FUNCTION tenant_not_named() RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
    RAISE EXCEPTION 'no tenant named in this transaction'
        USING ERRCODE = 'CS401',
              HINT = 'tenant data is read and written in a transaction whose first statement names the tenant';
END;
$$;

CREATE OR REPLACE FUNCTION current_tenant() RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(nullif(current_setting('countersign.tenant_id', true), ''), tenant_not_named());
$$;
