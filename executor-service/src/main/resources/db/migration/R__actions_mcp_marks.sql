-- An action proposed through an MCP client (mcp_client, V32) is stored marked clean only for a kind its tenant opted
-- in (tenant_policies.mcp_auto_apply_kinds): the rule StagingService applies, held here against any writer. A kind not
-- opted in is stored not clean, so it is never applied on arrival (actions_decision_marks_guard). Checked at insert,
-- with the opt-in as committed then: an opt-in withdrawn afterwards does not lower the marks of actions stored before.
CREATE OR REPLACE FUNCTION actions_mcp_marks_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.mcp_client IS NOT NULL AND NEW.context_clean AND NOT EXISTS (
            SELECT 1 FROM tenant_policies p
            WHERE p.tenant_id = NEW.tenant_id AND NEW.kind = ANY (p.mcp_auto_apply_kinds)) THEN
        RAISE EXCEPTION 'a proposal through an MCP client is marked clean only for a kind its tenant opted in'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS actions_mcp_marks_guard ON actions;
CREATE TRIGGER actions_mcp_marks_guard BEFORE INSERT ON actions
    FOR EACH ROW WHEN (NEW.mcp_client IS NOT NULL) EXECUTE FUNCTION actions_mcp_marks_guard();
