-- What you saw is what gets written: an action that changes an existing row records, when it is staged, that row's
-- version and the fields the person is shown (the "before" of the diff). Execution writes only if the row still has
-- that version; otherwise the action fails with target_changed. Both columns are set at insert and never change.
ALTER TABLE actions ADD COLUMN target_version bigint, ADD COLUMN target_before jsonb;

CREATE FUNCTION actions_target_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.target_version IS DISTINCT FROM OLD.target_version
            OR NEW.target_before IS DISTINCT FROM OLD.target_before THEN
        RAISE EXCEPTION 'the target an action was staged against cannot change' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER actions_target_guard BEFORE UPDATE ON actions FOR EACH ROW EXECUTE FUNCTION actions_target_guard();

GRANT SELECT (target_version, target_before) ON actions TO ${readerRole};

-- A row's version moves on every change, whoever makes it: the target_changed check relies on it, so it must not
-- depend on each writer remembering to bump it (or being unable to set it back).
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

