-- An action's idempotency key (idempotency_key(uuid), V8) is issued when the action is stored and retired, with the
-- reason, when it is cancelled, expires or is superseded by an edit; a retired key is never revived. Only the database records either: these
-- triggers run as the owner (search_path pinned with pg_temp last); the application roles only read their tenant's
-- keys. Issued once per INSERT statement for all the rows it stored (a transition table: staging stores a batch in one
-- statement), retired row by row.
CREATE OR REPLACE FUNCTION idempotency_keys_issue() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO idempotency_keys (key, action_id, tenant_id)
    SELECT idempotency_key(s.id), s.id, s.tenant_id FROM stored s;
    RETURN NULL;
END;
$$;
REVOKE ALL ON FUNCTION idempotency_keys_issue() FROM PUBLIC;

CREATE OR REPLACE FUNCTION idempotency_key_follow_action() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.status IN ('cancelled', 'expired', 'superseded') AND OLD.status <> NEW.status THEN
        UPDATE idempotency_keys SET retired_at = now(), retired_because = NEW.status
        WHERE action_id = NEW.id AND retired_at IS NULL;
    END IF;
    RETURN NEW;
END;
$$;
REVOKE ALL ON FUNCTION idempotency_key_follow_action() FROM PUBLIC;

DROP TRIGGER IF EXISTS actions_idempotency_key ON actions;
-- The WHEN clause is the function's condition: only a cancellation, an expiry or an edit's supersession calls it.
CREATE TRIGGER actions_idempotency_key AFTER UPDATE OF status ON actions
    FOR EACH ROW WHEN (NEW.status IN ('cancelled', 'expired', 'superseded') AND OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION idempotency_key_follow_action();
DROP TRIGGER IF EXISTS actions_idempotency_keys_issued ON actions;
CREATE TRIGGER actions_idempotency_keys_issued AFTER INSERT ON actions REFERENCING NEW TABLE AS stored
    FOR EACH STATEMENT EXECUTE FUNCTION idempotency_keys_issue();
