-- An action's trace parent (the W3C trace context of the proposal that staged it, V15) is set once, when the proposal
-- is stored: a later statement cannot re-parent an action's execution into another trace.
CREATE OR REPLACE FUNCTION actions_trace_parent_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.trace_parent IS DISTINCT FROM OLD.trace_parent THEN
        RAISE EXCEPTION 'an action''s trace parent is set when it is proposed, never changed'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS actions_trace_parent_guard ON actions;
-- The WHEN clause is the function's condition: an update that leaves it alone (every move) calls no function.
CREATE TRIGGER actions_trace_parent_guard BEFORE UPDATE ON actions
    FOR EACH ROW WHEN (NEW.trace_parent IS DISTINCT FROM OLD.trace_parent) EXECUTE FUNCTION actions_trace_parent_guard();
