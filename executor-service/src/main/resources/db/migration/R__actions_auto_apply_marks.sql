-- Why an action whose tier could apply on arrival waits for a person (held_reason: the budget, or a turn that read text
-- its user did not write) is set once, while the action is proposed. The mark a proposal arrived with (context_clean:
-- its model's context held only its user's own text) is set at insert and never raised, so text a steered model wrote
-- stays foreign after a person confirmed it. It may only be lowered (true -> false, the safe direction): the incident
-- switch (distrust_clean_marks, R__provenance_incident.sql) marks what an agent stamped clean as foreign.
CREATE OR REPLACE FUNCTION actions_auto_apply_marks_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.held_reason IS DISTINCT FROM OLD.held_reason
            AND (OLD.held_reason IS NOT NULL OR OLD.status <> 'proposed' OR NEW.status <> 'proposed') THEN
        RAISE EXCEPTION 'the reason an action is held is set once, while it is proposed'
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.context_clean AND NOT OLD.context_clean THEN
        RAISE EXCEPTION 'the mark a proposal arrived with is never raised to clean' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS actions_auto_apply_marks_guard ON actions;
CREATE TRIGGER actions_auto_apply_marks_guard BEFORE UPDATE OF held_reason, context_clean ON actions
    FOR EACH ROW EXECUTE FUNCTION actions_auto_apply_marks_guard();
