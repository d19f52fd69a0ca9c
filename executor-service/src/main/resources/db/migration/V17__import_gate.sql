-- CSV imports go through the same gate as actions (see docs/security/imports.md). ImportService applies the rules and
-- answers with problem+json; triggers are the backstop for statements that skip it, and the trail (R__import_gate.sql,
-- R__import_history.sql, R__import_tier.sql):
--   * a row is imported only into a wallet its importer owns (the tenant's wallets.owner_id);
--   * a row is born unconfirmed and names its importer; who confirmed it is set by the confirming move, never after;
--   * a row at or above the tenant's high-impact threshold (the catalogue's rule for an expense, threshold read when
--     it is confirmed) is HIGH and follows the tenant's approval policy for HIGH actions: never confirmed by its
--     importer where the policy needs another approver, and confirmed only with k distinct approvals recorded in
--     import_approvals where it needs k > 1 (the importer's not counted where another approver is needed);
--   * every import and every confirmation appends a row to import_history (who, which row, when, the tier, the
--     channel), written by a SECURITY DEFINER trigger: the executor role may read its tenant's history, never write it.
-- Limits: the database trusts the names the executor writes (imported_by, import_confirmed_by come from the caller's
-- token, checked by the application); a compromised executor could name another confirmer or record approvals.

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
