-- Machine-extracted rows (bank or receipt lines imported as CSV) are stored unconfirmed until a person confirms them;
-- summaries and the agent's reads leave them out (and say how many) until then.
ALTER TABLE transactions ADD COLUMN unconfirmed boolean NOT NULL DEFAULT false,
                         ADD COLUMN imported_by text;
CREATE INDEX transactions_unconfirmed ON transactions (tenant_id) WHERE unconfirmed;
GRANT UPDATE (unconfirmed) ON transactions TO ${executorRole};

-- Who confirmed an import, and the flag only ever goes from unconfirmed to confirmed.
ALTER TABLE transactions ADD COLUMN import_confirmed_by text,
    ADD CONSTRAINT imported_rows_name_their_importer CHECK (NOT unconfirmed OR imported_by IS NOT NULL);
GRANT UPDATE (import_confirmed_by) ON transactions TO ${executorRole};
-- Held by R__transactions_import_guard.sql.
