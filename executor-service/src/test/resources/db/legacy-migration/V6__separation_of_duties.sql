-- Separation of duties for HIGH actions: a tenant may require k approvals, and approvers other than the requester.
ALTER TABLE tenant_policies
    ADD COLUMN high_approvals integer NOT NULL DEFAULT 1 CHECK (high_approvals BETWEEN 1 AND 10),
    ADD COLUMN high_needs_other_approver boolean NOT NULL DEFAULT false;
ALTER TABLE tenant_policies ALTER COLUMN agent_writes SET DEFAULT 'enabled';

-- Approvals of HIGH actions, one per approver, append-only; visible while partial.
CREATE TABLE action_approvals (
    action_id uuid        NOT NULL REFERENCES actions (id),
    tenant_id text        NOT NULL,
    approver  text        NOT NULL,
    channel   text        NOT NULL,
    at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (action_id, approver)
);
CREATE TRIGGER action_approvals_frozen BEFORE UPDATE OR DELETE ON action_approvals
    FOR EACH ROW EXECUTE FUNCTION action_history_frozen();
CREATE TRIGGER action_approvals_no_truncate BEFORE TRUNCATE ON action_approvals
    FOR EACH STATEMENT EXECUTE FUNCTION action_history_frozen();

GRANT SELECT ON action_approvals TO ${readerRole};

-- The policy audit keeps the approval rules too.
ALTER TABLE tenant_policy_history
    ADD COLUMN high_approvals integer,
    ADD COLUMN high_needs_other_approver boolean;
CREATE OR REPLACE FUNCTION tenant_policy_history_append() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tenant_policy_history (tenant_id, agent_writes, changed_by, high_approvals, high_needs_other_approver)
    VALUES (NEW.tenant_id, NEW.agent_writes, NEW.updated_by, NEW.high_approvals, NEW.high_needs_other_approver);
    RETURN NEW;
END;
$$;
