-- A key is what it was issued as, for the action it was issued to; it is retired once, never revived, never deleted.
CREATE OR REPLACE FUNCTION idempotency_keys_guard() RETURNS trigger LANGUAGE plpgsql AS $$
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

DROP TRIGGER IF EXISTS idempotency_keys_guard ON idempotency_keys;
CREATE TRIGGER idempotency_keys_guard BEFORE UPDATE OR DELETE ON idempotency_keys
    FOR EACH ROW EXECUTE FUNCTION idempotency_keys_guard();
DROP TRIGGER IF EXISTS idempotency_keys_no_truncate ON idempotency_keys;
CREATE TRIGGER idempotency_keys_no_truncate BEFORE TRUNCATE ON idempotency_keys
    FOR EACH STATEMENT EXECUTE FUNCTION idempotency_keys_guard();
