-- The audit trails and approvals are append-only: no row is updated, deleted or truncated, whoever asks (the owner
-- included, short of dropping the trigger). One function for every such table; its message names the first of them.
CREATE OR REPLACE FUNCTION action_history_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the action history is append-only' USING ERRCODE = 'check_violation';
END;
$$;

DROP TRIGGER IF EXISTS action_history_frozen ON action_history;
CREATE TRIGGER action_history_frozen BEFORE UPDATE OR DELETE ON action_history
    FOR EACH ROW EXECUTE FUNCTION action_history_frozen();
DROP TRIGGER IF EXISTS action_history_no_truncate ON action_history;
CREATE TRIGGER action_history_no_truncate BEFORE TRUNCATE ON action_history
    FOR EACH STATEMENT EXECUTE FUNCTION action_history_frozen();

DROP TRIGGER IF EXISTS tenant_policy_history_frozen ON tenant_policy_history;
CREATE TRIGGER tenant_policy_history_frozen BEFORE UPDATE OR DELETE ON tenant_policy_history
    FOR EACH ROW EXECUTE FUNCTION action_history_frozen();
DROP TRIGGER IF EXISTS tenant_policy_history_no_truncate ON tenant_policy_history;
CREATE TRIGGER tenant_policy_history_no_truncate BEFORE TRUNCATE ON tenant_policy_history
    FOR EACH STATEMENT EXECUTE FUNCTION action_history_frozen();

DROP TRIGGER IF EXISTS action_approvals_frozen ON action_approvals;
CREATE TRIGGER action_approvals_frozen BEFORE UPDATE OR DELETE ON action_approvals
    FOR EACH ROW EXECUTE FUNCTION action_history_frozen();
DROP TRIGGER IF EXISTS action_approvals_no_truncate ON action_approvals;
CREATE TRIGGER action_approvals_no_truncate BEFORE TRUNCATE ON action_approvals
    FOR EACH STATEMENT EXECUTE FUNCTION action_history_frozen();

DROP TRIGGER IF EXISTS import_approvals_frozen ON import_approvals;
CREATE TRIGGER import_approvals_frozen BEFORE UPDATE OR DELETE ON import_approvals
    FOR EACH ROW EXECUTE FUNCTION action_history_frozen();
DROP TRIGGER IF EXISTS import_approvals_no_truncate ON import_approvals;
CREATE TRIGGER import_approvals_no_truncate BEFORE TRUNCATE ON import_approvals
    FOR EACH STATEMENT EXECUTE FUNCTION action_history_frozen();

DROP TRIGGER IF EXISTS import_history_frozen ON import_history;
CREATE TRIGGER import_history_frozen BEFORE UPDATE OR DELETE ON import_history
    FOR EACH ROW EXECUTE FUNCTION action_history_frozen();
DROP TRIGGER IF EXISTS import_history_no_truncate ON import_history;
CREATE TRIGGER import_history_no_truncate BEFORE TRUNCATE ON import_history
    FOR EACH STATEMENT EXECUTE FUNCTION action_history_frozen();
