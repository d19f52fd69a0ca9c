-- The per-tenant kill switch for agent writes, and its append-only audit.
CREATE TABLE tenant_policies (
    tenant_id    text        PRIMARY KEY,
    agent_writes text        NOT NULL CHECK (agent_writes IN ('enabled', 'staged_only', 'disabled')),
    updated_by   text        NOT NULL,
    updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tenant_policy_history (
    id           bigserial   PRIMARY KEY,
    tenant_id    text        NOT NULL,
    agent_writes text        NOT NULL,
    changed_by   text        NOT NULL,
    changed_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE FUNCTION tenant_policy_history_append() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tenant_policy_history (tenant_id, agent_writes, changed_by)
    VALUES (NEW.tenant_id, NEW.agent_writes, NEW.updated_by);
    RETURN NEW;
END;
$$;
CREATE TRIGGER tenant_policies_history AFTER INSERT OR UPDATE ON tenant_policies
    FOR EACH ROW EXECUTE FUNCTION tenant_policy_history_append();
CREATE TRIGGER tenant_policy_history_frozen BEFORE UPDATE OR DELETE ON tenant_policy_history
    FOR EACH ROW EXECUTE FUNCTION action_history_frozen();
CREATE TRIGGER tenant_policy_history_no_truncate BEFORE TRUNCATE ON tenant_policy_history
    FOR EACH STATEMENT EXECUTE FUNCTION action_history_frozen();

-- A policy is changed, never removed: a missing row means "enabled", so a delete would be an unaudited switch-on.
CREATE FUNCTION tenant_policies_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'set agent_writes instead of deleting a tenant policy' USING ERRCODE = 'check_violation';
END;
$$;
CREATE TRIGGER tenant_policies_kept BEFORE DELETE ON tenant_policies
    FOR EACH ROW EXECUTE FUNCTION tenant_policies_kept();
CREATE TRIGGER tenant_policies_no_truncate BEFORE TRUNCATE ON tenant_policies
    FOR EACH STATEMENT EXECUTE FUNCTION tenant_policies_kept();

GRANT SELECT ON tenant_policies TO ${readerRole};
