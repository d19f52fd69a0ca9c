-- Notifications (V35, issue 44): every action stored as proposed (waiting for a person) is a request to tell the
-- people who may decide it, written by the statement that stored it. An action applied on arrival is stored proposed
-- and moved on in the same transaction: its request is dropped when planned (NotificationPlanner tells nobody of an
-- action no longer proposed).
CREATE OR REPLACE FUNCTION notification_requests_for_stored() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO notification_requests (tenant_id, action_id, purpose)
    SELECT s.tenant_id, s.id, 'waiting' FROM stored s WHERE s.status = 'proposed'
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$;
REVOKE ALL ON FUNCTION notification_requests_for_stored() FROM PUBLIC;
DROP TRIGGER IF EXISTS actions_notification_requests ON actions;
CREATE TRIGGER actions_notification_requests AFTER INSERT ON actions REFERENCING NEW TABLE AS stored
    FOR EACH STATEMENT EXECUTE FUNCTION notification_requests_for_stored();

-- The planner's and the sender's searches: which tenants have requests due, which pending notifications are due, of
-- which tenants. Ids and tenants only; the work is then done in a transaction of each tenant, under row-level security
-- (the planner locks that tenant's requests there, SKIP LOCKED). Run as the owner, across tenants; search_path pinned
-- with pg_temp last (see V7).
CREATE OR REPLACE FUNCTION notification_tenants_due(p_limit integer) RETURNS TABLE (tenant_id text)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT r.tenant_id FROM notification_requests r WHERE r.requested_at <= now()
    GROUP BY r.tenant_id ORDER BY min(r.requested_at) LIMIT p_limit;
$$;
REVOKE ALL ON FUNCTION notification_tenants_due(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION notification_tenants_due(integer) TO ${executorRole};

CREATE OR REPLACE FUNCTION notifications_due(p_limit integer) RETURNS TABLE (tenant_id text, id uuid)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT n.tenant_id, n.id FROM notifications n
    WHERE n.state = 'pending' AND n.not_before <= now() ORDER BY n.not_before LIMIT p_limit;
$$;
REVOKE ALL ON FUNCTION notifications_due(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION notifications_due(integer) TO ${executorRole};

-- Reminders: each action still waiting for a person whose decision window closes within p_before and that has waited
-- at least p_before (so a short window is not reminded right after it was first told) gets one reminder request, its
-- reminder state recorded in action_reminders in the same statement (once per action, whichever instance runs it:
-- the primary key). At most p_limit actions, soonest to expire first; the number of requests written. Runs as the
-- owner across tenants (each row its own action's tenant), search_path pinned with pg_temp last.
CREATE OR REPLACE FUNCTION notification_reminders_due(p_before interval, p_limit integer) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    written integer;
BEGIN
    WITH due AS (
        SELECT a.tenant_id, a.id FROM actions a
        WHERE a.status = 'proposed' AND a.expires_at > now() AND a.expires_at <= now() + p_before
          AND a.proposed_at <= now() - p_before
          AND NOT EXISTS (SELECT 1 FROM action_reminders r WHERE r.tenant_id = a.tenant_id AND r.action_id = a.id)
        ORDER BY a.expires_at LIMIT p_limit),
    reminded AS (
        INSERT INTO action_reminders (tenant_id, action_id) SELECT tenant_id, id FROM due
        ON CONFLICT DO NOTHING RETURNING tenant_id, action_id)
    INSERT INTO notification_requests (tenant_id, action_id, purpose)
    SELECT tenant_id, action_id, 'reminder' FROM reminded
    ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS written = ROW_COUNT;
    RETURN written;
END;
$$;
REVOKE ALL ON FUNCTION notification_reminders_due(interval, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION notification_reminders_due(interval, integer) TO ${executorRole};
