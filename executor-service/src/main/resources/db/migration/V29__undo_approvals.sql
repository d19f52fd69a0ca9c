-- Undo of a k-approved action needs k persons (issue 39, part 5): each administrator's undo of an action that k > 1
-- distinct approvers let run is recorded here, and the k-th distinct one puts it back (UndoService). Append-only: an
-- undo asked twice by one person counts once; nothing is updated or removed.
CREATE TABLE undo_approvals (
    action_id uuid        NOT NULL,
    tenant_id text        NOT NULL,
    approver  text        NOT NULL CHECK (char_length(approver) BETWEEN 1 AND 128),
    at        timestamptz NOT NULL DEFAULT statement_timestamp(),
    PRIMARY KEY (action_id, approver)
);
ALTER TABLE undo_approvals ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON undo_approvals
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
REVOKE ALL ON undo_approvals FROM PUBLIC;
GRANT SELECT, INSERT ON undo_approvals TO ${executorRole};
