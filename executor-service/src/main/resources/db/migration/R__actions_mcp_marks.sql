-- Retired by V33: an action proposed through an MCP client is never marked clean, so the insert rule that let an
-- opted-in kind's proposal be stored clean is gone (whether it applies on arrival is actions_decision_marks_guard's).
-- The file stays, emptied of the rule, because databases that applied it keep its name in Flyway's history: a removed
-- repeatable migration would fail their validation.
DROP TRIGGER IF EXISTS actions_mcp_marks_guard ON actions;
DROP FUNCTION IF EXISTS actions_mcp_marks_guard();
