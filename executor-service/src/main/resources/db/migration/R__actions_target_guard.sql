-- What you saw is what gets written: the target row's version and "before" fields an action was staged against (V10)
-- are set at insert and never change, so execution can refuse with target_changed when the row moved since.
CREATE OR REPLACE FUNCTION actions_target_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.target_version IS DISTINCT FROM OLD.target_version
            OR NEW.target_before IS DISTINCT FROM OLD.target_before THEN
        RAISE EXCEPTION 'the target an action was staged against cannot change' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS actions_target_guard ON actions;
-- The WHEN clause is the function's condition: an update that leaves both alone (every move) calls no function.
CREATE TRIGGER actions_target_guard BEFORE UPDATE ON actions FOR EACH ROW
    WHEN (NEW.target_version IS DISTINCT FROM OLD.target_version OR NEW.target_before IS DISTINCT FROM OLD.target_before)
    EXECUTE FUNCTION actions_target_guard();
