-- A policy is changed, never removed: a missing row means "enabled", so a delete would be an unaudited switch-on.
CREATE OR REPLACE FUNCTION tenant_policies_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'set agent_writes instead of deleting a tenant policy' USING ERRCODE = 'check_violation';
END;
$$;

DROP TRIGGER IF EXISTS tenant_policies_kept ON tenant_policies;
CREATE TRIGGER tenant_policies_kept BEFORE DELETE ON tenant_policies
    FOR EACH ROW EXECUTE FUNCTION tenant_policies_kept();
DROP TRIGGER IF EXISTS tenant_policies_no_truncate ON tenant_policies;
CREATE TRIGGER tenant_policies_no_truncate BEFORE TRUNCATE ON tenant_policies
    FOR EACH STATEMENT EXECUTE FUNCTION tenant_policies_kept();
