-- An action's idempotency key (idempotency_key(uuid), V8) is issued when the action is stored and retired, with the
-- reason, when it is cancelled or expires; a retired key is never revived. Only the database records either: this
-- trigger runs as the owner (search_path pinned with pg_temp last); the application roles only read their tenant's
-- keys.
CREATE OR REPLACE FUNCTION idempotency_key_follow_action() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO idempotency_keys (key, action_id, tenant_id) VALUES (idempotency_key(NEW.id), NEW.id, NEW.tenant_id);
    ELSIF NEW.status IN ('cancelled', 'expired') AND OLD.status <> NEW.status THEN
        UPDATE idempotency_keys SET retired_at = now(), retired_because = NEW.status
        WHERE action_id = NEW.id AND retired_at IS NULL;
    END IF;
    RETURN NEW;
END;
$$;
REVOKE ALL ON FUNCTION idempotency_key_follow_action() FROM PUBLIC;

DROP TRIGGER IF EXISTS actions_idempotency_key ON actions;
CREATE TRIGGER actions_idempotency_key AFTER INSERT OR UPDATE OF status ON actions
    FOR EACH ROW EXECUTE FUNCTION idempotency_key_follow_action();
