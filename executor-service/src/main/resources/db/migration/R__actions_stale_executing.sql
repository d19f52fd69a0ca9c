-- The external-call recovery's search, across tenants like the expiry sweep's: executing actions whose call started
-- longer ago than any call can take. Only ids and tenants; each is then moved under its tenant's own policy with a
-- compare-and-swap. Runs as the owner; search_path pinned with pg_temp last (see V7).
CREATE OR REPLACE FUNCTION actions_stale_executing(p_older_than interval, p_limit integer)
    RETURNS TABLE (tenant_id text, id uuid)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT a.tenant_id, a.id FROM actions a
    WHERE a.status = 'executing' AND a.call_started_at < now() - p_older_than
    ORDER BY a.call_started_at LIMIT p_limit;
$$;
REVOKE ALL ON FUNCTION actions_stale_executing(interval, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION actions_stale_executing(interval, integer) TO ${executorRole};
