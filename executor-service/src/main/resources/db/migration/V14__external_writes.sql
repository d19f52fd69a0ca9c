-- External writes (e-mail, tickets) cannot join the database transaction, so they are claimed, called and recorded:
-- the confirming transaction moves the action confirmed -> executing and commits; the call is made with no lock held;
-- a second transaction records executing -> executed | failed. If nobody records (the instance died between the call
-- and the record, or the vendor's answer never came), the action goes to needs_review: a person checks the vendor and
-- resolves it to executed or failed. The moves: R__actions_state_machine.sql; the claim: R__actions_external_calls.sql;
-- the recovery's search: R__actions_stale_executing.sql.
-- NOT VALID, then VALIDATE: the check of existing rows does not hold ACCESS EXCLUSIVE on actions.
ALTER TABLE actions DROP CONSTRAINT actions_status_check;
ALTER TABLE actions ADD CONSTRAINT actions_status_check CHECK (status IN
    ('proposed', 'confirmed', 'executing', 'executed', 'needs_review', 'cancelled', 'expired', 'failed', 'undone'))
    NOT VALID;
ALTER TABLE actions VALIDATE CONSTRAINT actions_status_check;

-- call_started_at: when the current call of an executing action started (the claim, or the recovery's lease for a
-- repeat). It moves only while the action is executing; the recovery takes a lease by compare-and-swap on it, so one
-- instance at a time repeats a call.
ALTER TABLE actions ADD COLUMN call_started_at timestamptz;
CREATE INDEX actions_executing_by_call ON actions (call_started_at) WHERE status = 'executing';

-- Support cases: the requestor an agent may e-mail. The address is read when the proposal is staged and shown to the
-- person who confirms (the target's "before"); the e-mail goes to that address only if the case has not changed since
-- (its version: R__row_versions.sql).
CREATE TABLE support_cases (
    id              uuid        PRIMARY KEY,
    tenant_id       text        NOT NULL,
    title           text        NOT NULL,
    requestor_email text        NOT NULL CHECK (requestor_email ~ '^[^@\s<>]+@[^@\s<>]+$'),
    version         bigint      NOT NULL DEFAULT 1,
    created_at      timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE support_cases ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON support_cases
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
GRANT SELECT ON support_cases TO ${executorRole};
