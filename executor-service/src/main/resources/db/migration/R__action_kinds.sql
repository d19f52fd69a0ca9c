-- A kind recorded as external (V30) stays external: the external-call guard must not be switched off for a kind by
-- an update, whoever makes it. Rows are never deleted (no role is granted DELETE).
CREATE OR REPLACE FUNCTION action_kinds_stay_external() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF OLD.external AND NOT NEW.external THEN
        RAISE EXCEPTION 'kind % is external and stays so (a migration may change that)', OLD.kind
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.kind IS DISTINCT FROM OLD.kind THEN
        RAISE EXCEPTION 'a kind is not renamed' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS action_kinds_stay_external ON action_kinds;
CREATE TRIGGER action_kinds_stay_external BEFORE UPDATE ON action_kinds FOR EACH ROW
    EXECUTE FUNCTION action_kinds_stay_external();
