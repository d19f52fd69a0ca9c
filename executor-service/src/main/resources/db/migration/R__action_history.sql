-- Every state an action enters (and every re-issue of its confirm token), appended by the database itself, so the trail
-- is complete even for statements that skip the application. Who and through what channel come from transaction-local
-- settings the executor makes (countersign.actor, countersign.channel, countersign.reason); a statement without them is
-- recorded as actor 'database', channel 'sql'. A confirmation by another user of the tenant than the one who asked is
-- allowed and marked here as an actor mismatch (unless the transaction gave its own reason), so it can be counted from
-- the history; no metric counts it yet. A proposal stored through the agent channel (staging) is its requester's move,
-- whatever actor the transaction names: staging stores a poll batch of one tenant's proposals, of several requesters,
-- in one statement. The trail is append-only (R__append_only_trails.sql).
-- Runs as the owner (SECURITY DEFINER, search_path pinned with pg_temp last): the executor's role cannot write the
-- trail itself. CREATE OR REPLACE resets what it does not say, so it says both; PUBLIC may not call it.
CREATE OR REPLACE FUNCTION action_history_append() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.status <> OLD.status OR NEW.token_hash <> OLD.token_hash THEN
        INSERT INTO action_history (action_id, tenant_id, from_status, to_status, actor, channel, reason)
        VALUES (NEW.id, NEW.tenant_id, CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.status END, NEW.status,
                CASE WHEN TG_OP = 'INSERT' AND current_setting('countersign.channel', true) = 'agent'
                         THEN NEW.requested_by
                     ELSE coalesce(nullif(current_setting('countersign.actor', true), ''), 'database') END,
                coalesce(nullif(current_setting('countersign.channel', true), ''), 'sql'),
                coalesce(nullif(current_setting('countersign.reason', true), ''),
                         CASE WHEN TG_OP = 'UPDATE' AND NEW.token_hash <> OLD.token_hash
                                  THEN 'confirm token reissued'
                              WHEN TG_OP = 'UPDATE' AND NEW.status = 'confirmed'
                                   AND NEW.confirmed_by <> NEW.requested_by
                                  THEN 'actor mismatch: confirmed by another user than the requester' END));
    END IF;
    RETURN NEW;
END;
$$;
REVOKE ALL ON FUNCTION action_history_append() FROM PUBLIC;

DROP TRIGGER IF EXISTS actions_history ON actions;
CREATE TRIGGER actions_history AFTER INSERT OR UPDATE ON actions FOR EACH ROW EXECUTE FUNCTION action_history_append();
