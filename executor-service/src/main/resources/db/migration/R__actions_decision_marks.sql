-- The marks a decision leaves on an action: auto_applied is set only by confirming, only by the tier rules
-- ('countersign/auto-apply'), never on a HIGH action nor on one not marked clean but for an MCP client's of an
-- opted-in kind (the same rules as AutoApply and staging, as a backstop); undone_by and undone_at are set only by
-- executed -> undone, which must name both. A new action carries none of them.
CREATE OR REPLACE FUNCTION actions_decision_marks_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.auto_applied OR NEW.undone_by IS NOT NULL OR NEW.undone_at IS NOT NULL THEN
            RAISE EXCEPTION 'a new action is neither applied nor undone' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.auto_applied IS DISTINCT FROM OLD.auto_applied AND NOT (OLD.status = 'proposed' AND NEW.status = 'confirmed')
            THEN
        RAISE EXCEPTION 'only confirming records an automatic application' USING ERRCODE = 'check_violation';
    END IF;
    -- An edit is never applied on arrival (V38): it waits for a person, whatever its tier.
    IF NEW.auto_applied AND NOT OLD.auto_applied AND NEW.supersedes IS NOT NULL THEN
        RAISE EXCEPTION 'an edited action is never applied automatically' USING ERRCODE = 'check_violation';
    END IF;
    -- Only the tier rules apply on arrival, and never a HIGH action (the same rule as AutoApply, as a backstop).
    IF NEW.auto_applied AND NOT OLD.auto_applied
            AND (NEW.tier = 'high' OR NEW.confirmed_by IS DISTINCT FROM 'countersign/auto-apply') THEN
        RAISE EXCEPTION 'a HIGH action is never applied automatically, and only the tier rules apply one'
            USING ERRCODE = 'check_violation';
    END IF;
    -- Nor one whose proposal was not marked clean (a turn that read text its user did not write), unless it came
    -- through an MCP client (never marked clean, V33) and its tenant opted its kind in, as committed now; staging's
    -- rule too, which holds such an action for a person.
    IF NEW.auto_applied AND NOT OLD.auto_applied AND NOT NEW.context_clean
            AND NOT (NEW.mcp_client IS NOT NULL AND EXISTS (
                SELECT 1 FROM tenant_policies p
                WHERE p.tenant_id = NEW.tenant_id AND NEW.kind = ANY (p.mcp_auto_apply_kinds))) THEN
        RAISE EXCEPTION 'only a clean proposal, or an MCP one of an opted-in kind, is applied automatically'
            USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.undone_by IS DISTINCT FROM OLD.undone_by OR NEW.undone_at IS DISTINCT FROM OLD.undone_at)
            AND NOT (OLD.status = 'executed' AND NEW.status = 'undone') THEN
        RAISE EXCEPTION 'only undoing records who undid' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status = 'undone' AND (NEW.undone_by IS NULL OR NEW.undone_at IS NULL) THEN
        RAISE EXCEPTION 'an undone action names who undid it and when' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS actions_decision_marks_guard ON actions;
CREATE TRIGGER actions_decision_marks_guard BEFORE INSERT OR UPDATE ON actions
    FOR EACH ROW EXECUTE FUNCTION actions_decision_marks_guard();
