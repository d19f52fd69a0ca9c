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

-- Whether this session's login role may name its tenant with the plain setting: the executor's role (which owns every
-- write and mints the grants, so it is trusted with the tenant it names), and the role that runs the migrations. Every
-- other login role, the agent's reader and plan roles and any role added later, must present a reader grant instead.
-- session_user, not current_user: a SECURITY DEFINER function runs as the owner but keeps its caller's session user,
-- and no role here may change its session user (SET SESSION AUTHORIZATION needs a superuser; SET ROLE changes only
-- current_user, and the agent's roles are members of no other role).
-- The inlined functions below name everything with its schema: an inlined body is resolved with the caller's
-- search_path, where a role that could create objects might place look-alikes.
CREATE OR REPLACE FUNCTION tenant_setting_trusted() RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT pg_catalog.pg_has_role(session_user, '${executorRole}', 'MEMBER')
        OR pg_catalog.pg_has_role(session_user, '${flyway:user}', 'MEMBER');
$$;

CREATE OR REPLACE FUNCTION tenant_not_granted() RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
    RAISE EXCEPTION 'no live reader grant named in this transaction'
        USING ERRCODE = 'CS401',
              HINT = 'this role reads tenant data only under a reader grant executor-service minted for a signed-in'
                  ' person (countersign.reader_grant)';
END;
$$;

-- The one lookup of the grant this session names: live at this statement's start (not the transaction's: a
-- transaction held open must not keep an expired grant alive), not revoked. SECURITY DEFINER (as the owner, search_path
-- pinned): PostgreSQL may evaluate it while planning any statement under the policies, the executor's too, whose role
-- has no privilege on reader_grants; the secret's hash is what restricts the answer to the caller's own grant. One
-- index lookup per call; not inlined, so a sequential scan of an agent's read calls it per row.
CREATE OR REPLACE FUNCTION live_reader_grant(OUT tenant_id text, OUT user_id text)
    LANGUAGE sql STABLE PARALLEL SAFE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT g.tenant_id, g.user_id FROM reader_grants g
    WHERE g.secret_hash = sha256(convert_to(current_setting('countersign.reader_grant', true), 'UTF8'))
      AND g.expires_at > statement_timestamp() AND g.revoked_at IS NULL;
$$;

-- The tenant of the live grant this session names; refused (CS401) without one.
CREATE OR REPLACE FUNCTION granted_tenant() RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT coalesce((SELECT g.tenant_id FROM live_reader_grant() g), tenant_not_granted());
$$;

-- The person whose grant this session names, or NULL in a trusted session (which reads any person's rows of its tenant).
CREATE OR REPLACE FUNCTION granted_user() RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT CASE WHEN tenant_setting_trusted() THEN NULL ELSE (SELECT g.user_id FROM live_reader_grant() g) END;
$$;

-- The tenant this transaction may see: the one it named, for a trusted role; the one of its live reader grant, for any
-- other. Kept inlinable for the trusted branch (the executor's hot path is unchanged but for the role check).
CREATE OR REPLACE FUNCTION current_tenant() RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN public.tenant_setting_trusted()
                THEN coalesce(nullif(pg_catalog.current_setting('countersign.tenant_id', true), ''),
                              public.tenant_not_named())
                ELSE public.granted_tenant() END;
$$;
