-- CSV imports go through the same gate as actions (see docs/security/imports.md): ImportService applies the rules and
-- answers with problem+json; the database is the backstop for statements that skip it (R__import_gate.sql) and keeps
-- the trail (R__import_history.sql), with each row's tier (R__import_tier.sql). This migration adds their tables.

-- Approvals of HIGH imported rows under a k-of-n policy, one per approver, append-only (as action_approvals).
CREATE TABLE import_approvals (
    transaction_id uuid        NOT NULL REFERENCES transactions (id),
    tenant_id      text        NOT NULL,
    approver       text        NOT NULL,
    channel        text        NOT NULL,
    at             timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (transaction_id, approver)
);
-- Append-only: R__append_only_trails.sql.

-- The imports' trail, append-only, one row per imported and per confirmed transaction.
CREATE TABLE import_history (
    id             bigserial     PRIMARY KEY,
    transaction_id uuid          NOT NULL REFERENCES transactions (id),
    tenant_id      text          NOT NULL,
    wallet_id      uuid          NOT NULL,
    event          text          NOT NULL CHECK (event IN ('imported', 'approved', 'confirmed')),
    actor          text          NOT NULL,
    channel        text          NOT NULL,
    amount         numeric(14,2) NOT NULL,
    tier           text          NOT NULL CHECK (tier IN ('low', 'high')),
    at             timestamptz   NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX import_history_by_transaction ON import_history (tenant_id, transaction_id, id);

-- Appended by R__import_history.sql; append-only (R__append_only_trails.sql).

DO $$
DECLARE
    isolated text;
BEGIN
    FOREACH isolated IN ARRAY ARRAY['import_history', 'import_approvals'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', isolated);
        EXECUTE format('CREATE POLICY tenant_rows ON %I'
                       ' USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant())', isolated);
    END LOOP;
END
$$;
GRANT SELECT ON import_history TO ${executorRole};
GRANT SELECT, INSERT ON import_approvals TO ${executorRole};
