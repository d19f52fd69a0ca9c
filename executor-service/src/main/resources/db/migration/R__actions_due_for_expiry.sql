-- The expiry sweep's search: which undecided actions, of which tenants, are past their window. Only ids and tenants;
-- the sweep then expires them under each tenant's own policy, with the same compare-and-swap as everywhere else.
-- Runs as the owner, across tenants; search_path pinned with pg_temp last (see V7).
CREATE OR REPLACE FUNCTION actions_due_for_expiry(p_limit integer) RETURNS TABLE (tenant_id text, id uuid)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT a.tenant_id, a.id FROM actions a
    WHERE a.status IN ('proposed', 'confirmed') AND a.expires_at <= now()
    ORDER BY a.expires_at LIMIT p_limit;
$$;
REVOKE ALL ON FUNCTION actions_due_for_expiry(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION actions_due_for_expiry(integer) TO ${executorRole};
