-- Tracing: the W3C trace context of the proposal that staged an action (from the Kafka record's traceparent header),
-- so its execution, whenever and wherever a person confirms it, is a span of the trace that began with the chat turn.
-- Telemetry only: nothing decides anything from it, and the executor role may write it like any other column it owns.
ALTER TABLE actions ADD COLUMN trace_parent text
    CONSTRAINT actions_trace_parent_format CHECK (trace_parent ~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$');

-- Set once, when the proposal is stored: a later statement cannot re-parent an action's execution into another trace.
-- The agent's reader role is granted no SELECT on the column (its grants on actions name their columns).
CREATE FUNCTION actions_trace_parent_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.trace_parent IS DISTINCT FROM OLD.trace_parent THEN
        RAISE EXCEPTION 'an action''s trace parent is set when it is proposed, never changed'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER actions_trace_parent_guard BEFORE UPDATE ON actions
    FOR EACH ROW EXECUTE FUNCTION actions_trace_parent_guard();
