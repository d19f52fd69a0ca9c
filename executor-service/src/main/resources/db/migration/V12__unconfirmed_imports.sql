-- Machine-extracted rows (bank or receipt lines imported as CSV) are stored unconfirmed until a person confirms them;
-- summaries and the agent's reads leave them out (and say how many) until then.
ALTER TABLE transactions ADD COLUMN unconfirmed boolean NOT NULL DEFAULT false,
                         ADD COLUMN imported_by text;
CREATE INDEX transactions_unconfirmed ON transactions (tenant_id) WHERE unconfirmed;
GRANT UPDATE (unconfirmed) ON transactions TO ${executorRole};
