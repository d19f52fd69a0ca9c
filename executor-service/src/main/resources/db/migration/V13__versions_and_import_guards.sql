-- Review fixes for V10-V12.

-- A row's version moves on every change, whoever makes it: the target_changed check of V10 relies on it, so it must
-- not depend on each writer remembering to bump it (or being unable to set it back).
CREATE FUNCTION bump_version() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    NEW.version := OLD.version + 1;
    RETURN NEW;
END
$$;
CREATE TRIGGER transactions_bump_version BEFORE UPDATE ON transactions FOR EACH ROW EXECUTE FUNCTION bump_version();
CREATE TRIGGER wallets_bump_version BEFORE UPDATE ON wallets FOR EACH ROW EXECUTE FUNCTION bump_version();
CREATE TRIGGER training_plans_bump_version BEFORE UPDATE ON training_plans
    FOR EACH ROW EXECUTE FUNCTION bump_version();

-- Imported rows: who confirmed them, and the flag only ever goes from unconfirmed to confirmed.
ALTER TABLE transactions ADD COLUMN import_confirmed_by text,
    ADD CONSTRAINT imported_rows_name_their_importer CHECK (NOT unconfirmed OR imported_by IS NOT NULL);
GRANT UPDATE (import_confirmed_by) ON transactions TO ${executorRole};
CREATE FUNCTION transactions_import_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.unconfirmed AND NOT OLD.unconfirmed THEN
        RAISE EXCEPTION 'a confirmed transaction cannot become unconfirmed' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.unconfirmed AND NOT NEW.unconfirmed AND NEW.import_confirmed_by IS NULL THEN
        RAISE EXCEPTION 'confirming an import names who confirmed it' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER transactions_import_guard BEFORE UPDATE ON transactions
    FOR EACH ROW EXECUTE FUNCTION transactions_import_guard();

-- Plans: the owner exemption reads the table's owner from the catalog by the trigger's own relation id; a plan becomes
-- active only with who activated it and when, those never change afterwards, and content changes only while it is and
-- stays a draft.
CREATE OR REPLACE FUNCTION training_plans_status_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'draft' AND current_user IS DISTINCT FROM
                (SELECT pg_get_userbyid(c.relowner) FROM pg_class c WHERE c.oid = TG_RELID) THEN
            RAISE EXCEPTION 'a plan is born a draft' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status AND NOT (
            (OLD.status = 'draft' AND NEW.status IN ('active', 'archived'))
            OR (OLD.status = 'active' AND NEW.status = 'archived')) THEN
        RAISE EXCEPTION 'a plan cannot go from % to %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status = 'active' AND OLD.status = 'draft'
            AND (NEW.activated_by IS NULL OR NEW.activated_at IS NULL OR NEW.activated_by <> NEW.user_id) THEN
        RAISE EXCEPTION 'a plan is activated by its own user, and says when' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status <> 'draft' AND (NEW.activated_by, NEW.activated_at)
            IS DISTINCT FROM (OLD.activated_by, OLD.activated_at) THEN
        RAISE EXCEPTION 'who activated a plan, and when, cannot change' USING ERRCODE = 'check_violation';
    END IF;
    IF NOT (OLD.status = 'draft' AND NEW.status = 'draft') AND (NEW.name, NEW.goal, NEW.starts_on, NEW.schedule)
            IS DISTINCT FROM (OLD.name, OLD.goal, OLD.starts_on, OLD.schedule) THEN
        RAISE EXCEPTION 'only a draft plan can be revised' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
