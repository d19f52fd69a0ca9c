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
-- Append-only: R__append_only_trails.sql.

GRANT SELECT ON action_approvals TO ${readerRole};

-- The policy audit keeps the approval rules too (R__tenant_policy_history.sql).
ALTER TABLE tenant_policy_history
    ADD COLUMN high_approvals integer,
    ADD COLUMN high_needs_other_approver boolean;
