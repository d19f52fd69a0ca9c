-- One idempotency key per action, for executors that forward an action to an external vendor (mail, tickets,
-- payments): a retry after a crash sends the same key, and the vendor drops the duplicate.
--   * Derived from the action id by the one function below, so every retry of the same action, on any instance,
--     derives the same key; the key reveals nothing the id does not.
--   * Issued when the action is stored; retired, with the reason, when the action is cancelled or expires: a retired
--     key is never issued again (the key is unique and so is the action id) and never revived.
--   * Only the database records issue and retirement (SECURITY DEFINER triggers on actions); the application roles may
--     read their tenant's keys and nothing else. The table is the record an integration checks a key against (is it
--     live, for which action); the key itself is no secret (anyone with the action id can derive it).
-- Limits: the key makes a vendor call idempotent only if the vendor honours it, for as long as the vendor remembers
-- it. Retiring is a record, not a lock: a cancelled or expired action can never reach an executor anyway, because
-- those statuses are final (ActionTransitions and the actions guard trigger).
CREATE FUNCTION idempotency_key(p_action_id uuid) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog AS $$
    SELECT 'cs1_' || encode(sha256(convert_to('countersign/action/' || p_action_id::text, 'UTF8')), 'hex');
$$;

CREATE TABLE idempotency_keys (
    key             text        PRIMARY KEY,
    action_id       uuid        NOT NULL UNIQUE REFERENCES actions (id),
    tenant_id       text        NOT NULL,
    issued_at       timestamptz NOT NULL DEFAULT now(),
    retired_at      timestamptz,
    retired_because text        CHECK (retired_because IN ('cancelled', 'expired')),
    CHECK ((retired_at IS NULL) = (retired_because IS NULL))
);

CREATE FUNCTION idempotency_key_follow_action() RETURNS trigger
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
CREATE TRIGGER actions_idempotency_key AFTER INSERT OR UPDATE OF status ON actions
    FOR EACH ROW EXECUTE FUNCTION idempotency_key_follow_action();

-- A key is what it was issued as, for the action it was issued to; it is retired once, never revived, never deleted.
CREATE FUNCTION idempotency_keys_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'TRUNCATE') THEN
        RAISE EXCEPTION 'idempotency keys are never deleted' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.key <> OLD.key OR NEW.action_id <> OLD.action_id OR NEW.tenant_id <> OLD.tenant_id
            OR NEW.issued_at <> OLD.issued_at OR OLD.retired_at IS NOT NULL THEN
        RAISE EXCEPTION 'idempotency key % can only be retired, once', OLD.key USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER idempotency_keys_guard BEFORE UPDATE OR DELETE ON idempotency_keys
    FOR EACH ROW EXECUTE FUNCTION idempotency_keys_guard();
CREATE TRIGGER idempotency_keys_no_truncate BEFORE TRUNCATE ON idempotency_keys
    FOR EACH STATEMENT EXECUTE FUNCTION idempotency_keys_guard();

-- Actions stored before this migration get their keys, retired where the action already was.
INSERT INTO idempotency_keys (key, action_id, tenant_id, issued_at, retired_at, retired_because)
SELECT idempotency_key(id), id, tenant_id, proposed_at,
       CASE WHEN status IN ('cancelled', 'expired') THEN now() END,
       CASE WHEN status IN ('cancelled', 'expired') THEN status END
FROM actions;

ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON idempotency_keys
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
GRANT SELECT ON idempotency_keys TO ${executorRole}, ${readerRole};
REVOKE ALL ON FUNCTION idempotency_key_follow_action() FROM PUBLIC;
