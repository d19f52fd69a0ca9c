-- External writes (e-mail, tickets) cannot join the database transaction, so they are claimed, called and recorded:
-- the external kinds never go confirmed -> executed in one step (they are claimed as executing first), and
-- call_started_at, when the current call started, moves only while the action is executing and is always set then.
-- The recovery takes its lease by compare-and-swap on call_started_at. The moves themselves are in
-- R__actions_state_machine.sql.
CREATE OR REPLACE FUNCTION actions_external_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    -- The external kinds (the catalogue's "external" domain, recorded in action_kinds) are never written inside the
    -- confirming transaction. Failing closed: a kind not recorded as a database kind counts as external.
    IF OLD.status = 'confirmed' AND NEW.status = 'executed'
       AND NOT EXISTS (SELECT 1 FROM public.action_kinds k WHERE k.kind = NEW.kind AND NOT k.external) THEN
        RAISE EXCEPTION 'an external action is claimed (executing) before it is called' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.call_started_at IS DISTINCT FROM OLD.call_started_at AND NEW.status <> 'executing' THEN
        RAISE EXCEPTION 'only an executing action starts a call' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status = 'executing' AND NEW.call_started_at IS NULL THEN
        RAISE EXCEPTION 'an executing action records when its call started' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS actions_external_guard ON actions;
-- The WHEN clause lets through every update one of the function's three conditions could hold for (an execution, a
-- call's start, an executing action); the others (a confirmation, a cancellation, a hold) call no function.
CREATE TRIGGER actions_external_guard BEFORE UPDATE ON actions FOR EACH ROW
    WHEN ((OLD.status = 'confirmed' AND NEW.status = 'executed') OR NEW.status = 'executing'
          OR NEW.call_started_at IS DISTINCT FROM OLD.call_started_at)
    EXECUTE FUNCTION actions_external_guard();
