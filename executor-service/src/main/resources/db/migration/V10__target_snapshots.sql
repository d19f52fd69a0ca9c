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
