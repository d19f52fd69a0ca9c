-- Two persons for loosening (issue 39, part 5): a change of a tenant policy that weakens protection (threshold up,
-- budgets up, approvals down, agent writes or external sends turned on) is staged here by one administrator and
-- applied only when another confirms it (PolicyChanges in the executor). A tightening change applies at once and is
-- not staged. base: the setting's value when the change was proposed; a confirm finds the setting changed since and
-- refuses. break_glass_by: an operator's exemption for a tenant with one administrator, set only by the owner-only
-- function break_glass_policy_change (R__policy_changes.sql); then the proposer may confirm it.
CREATE TABLE policy_changes (
    id                 uuid        PRIMARY KEY,
    tenant_id          text        NOT NULL,
    setting            text        NOT NULL CHECK (char_length(setting) BETWEEN 1 AND 64),
    value              jsonb       NOT NULL,
    base               jsonb       NOT NULL,
    proposed_by        text        NOT NULL,
    proposed_at        timestamptz NOT NULL DEFAULT statement_timestamp(),
    expires_at         timestamptz NOT NULL,
    status             text        NOT NULL DEFAULT 'pending'
                                   CHECK (status IN ('pending', 'applied', 'rejected', 'superseded')),
    decided_by         text,
    decided_at         timestamptz,
    break_glass_by     text,
    break_glass_reason text CHECK (char_length(break_glass_reason) BETWEEN 1 AND 500),
    CHECK (expires_at > proposed_at)
);
-- At most one change of a setting waits per tenant: a new proposal supersedes the one before.
CREATE UNIQUE INDEX policy_changes_one_pending ON policy_changes (tenant_id, setting) WHERE status = 'pending';
ALTER TABLE policy_changes ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON policy_changes
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
REVOKE ALL ON policy_changes FROM PUBLIC;
GRANT SELECT, INSERT ON policy_changes TO ${executorRole};
GRANT UPDATE (status, decided_by, decided_at) ON policy_changes TO ${executorRole};
