-- Second-device requests (V39, issue 45): what binds one to its action is checked here, not only by the code that
-- writes it. A request is stored only for an action of its own tenant that still waits for a person, and only with
-- that action's parameters hash: a request about other parameters, another tenant's action or a decided one is
-- refused (23514).
CREATE OR REPLACE FUNCTION second_device_request_bound() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM actions a
                   WHERE a.id = NEW.action_id AND a.tenant_id = NEW.tenant_id AND a.status = 'proposed'
                     AND a.params_hash = NEW.params_hash) THEN
        RAISE EXCEPTION 'a second-device request must name a proposed action of its tenant and that action''s'
            ' parameters hash'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
REVOKE ALL ON FUNCTION second_device_request_bound() FROM PUBLIC;
DROP TRIGGER IF EXISTS second_device_requests_bound ON second_device_requests;
CREATE TRIGGER second_device_requests_bound BEFORE INSERT ON second_device_requests
    FOR EACH ROW EXECUTE FUNCTION second_device_request_bound();

-- The poller's search: pending requests due for a poll, of which tenants. Ids and tenants only; each is then claimed
-- and polled in a transaction of its tenant, under row-level security. Run as the owner, across tenants; search_path
-- pinned with pg_temp last (see V7).
CREATE OR REPLACE FUNCTION second_device_requests_due(p_limit integer)
    RETURNS TABLE (tenant_id text, notification_id uuid)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT r.tenant_id, r.notification_id FROM second_device_requests r
    WHERE r.state = 'pending' AND r.next_poll_at <= now() ORDER BY r.next_poll_at LIMIT p_limit;
$$;
REVOKE ALL ON FUNCTION second_device_requests_due(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION second_device_requests_due(integer) TO ${executorRole};
