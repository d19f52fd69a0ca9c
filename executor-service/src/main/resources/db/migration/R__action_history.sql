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
-- Stored actions are recorded once per INSERT statement for all the rows it stored (a transition table), moves row by row.
CREATE OR REPLACE FUNCTION action_history_append_stored() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO action_history (action_id, tenant_id, from_status, to_status, actor, channel, reason)
    SELECT s.id, s.tenant_id, NULL, s.status,
           CASE WHEN current_setting('countersign.channel', true) = 'agent' THEN s.requested_by
                ELSE coalesce(nullif(current_setting('countersign.actor', true), ''), 'database') END,
           coalesce(nullif(current_setting('countersign.channel', true), ''), 'sql'),
           nullif(current_setting('countersign.reason', true), '')
    FROM stored s;
    RETURN NULL;
END;
$$;
REVOKE ALL ON FUNCTION action_history_append_stored() FROM PUBLIC;

CREATE OR REPLACE FUNCTION action_history_append() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.status <> OLD.status OR NEW.token_hash <> OLD.token_hash THEN
        INSERT INTO action_history (action_id, tenant_id, from_status, to_status, actor, channel, reason)
        VALUES (NEW.id, NEW.tenant_id, OLD.status, NEW.status,
                coalesce(nullif(current_setting('countersign.actor', true), ''), 'database'),
                coalesce(nullif(current_setting('countersign.channel', true), ''), 'sql'),
                coalesce(nullif(current_setting('countersign.reason', true), ''),
                         CASE WHEN NEW.token_hash <> OLD.token_hash
                                  THEN 'confirm token reissued'
                              WHEN NEW.status = 'confirmed' AND NEW.confirmed_by <> NEW.requested_by
                                  THEN 'actor mismatch: confirmed by another user than the requester' END));
    END IF;
    RETURN NEW;
END;
$$;
REVOKE ALL ON FUNCTION action_history_append() FROM PUBLIC;

DROP TRIGGER IF EXISTS actions_history ON actions;
-- The WHEN clause is the function's condition: an update that is no move and no re-issue (a hold) calls no function.
CREATE TRIGGER actions_history AFTER UPDATE ON actions FOR EACH ROW
    WHEN (NEW.status IS DISTINCT FROM OLD.status OR NEW.token_hash IS DISTINCT FROM OLD.token_hash)
    EXECUTE FUNCTION action_history_append();
DROP TRIGGER IF EXISTS actions_history_stored ON actions;
CREATE TRIGGER actions_history_stored AFTER INSERT ON actions REFERENCING NEW TABLE AS stored
    FOR EACH STATEMENT EXECUTE FUNCTION action_history_append_stored();
