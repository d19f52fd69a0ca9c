-- Reminders before expiry (issue 44, docs/approvals.md): the reminder state of each action that was reminded. A row
-- here means a reminder request was written for the action (once: the primary key), by notification_reminders_due
-- (R__notifications.sql), in the statement that wrote the request; the decision page shows when.
CREATE TABLE action_reminders (
    tenant_id    text        NOT NULL,
    action_id    uuid        NOT NULL,
    reminded_at  timestamptz NOT NULL DEFAULT statement_timestamp(),
    PRIMARY KEY (tenant_id, action_id)
);
ALTER TABLE action_reminders ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON action_reminders
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
REVOKE ALL ON action_reminders FROM PUBLIC;
GRANT SELECT ON action_reminders TO ${executorRole};
