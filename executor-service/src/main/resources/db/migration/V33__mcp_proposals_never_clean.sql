-- An action proposed through an MCP client is never marked clean, opt-in or not (review of V32): its text (a
-- description, a name the external agent wrote) must never pass for the person's own when a later chat turn reads it.
-- Whether it may apply on arrival is the tenant's opt-in, checked where an application is recorded
-- (actions_decision_marks_guard), not the clean mark. R__actions_mcp_marks.sql drops V32's insert rule.
DROP TRIGGER IF EXISTS actions_mcp_marks_guard ON actions;
UPDATE actions SET context_clean = false WHERE mcp_client IS NOT NULL AND context_clean;
ALTER TABLE actions
    ADD CONSTRAINT actions_mcp_proposals_never_clean CHECK (mcp_client IS NULL OR NOT context_clean);
