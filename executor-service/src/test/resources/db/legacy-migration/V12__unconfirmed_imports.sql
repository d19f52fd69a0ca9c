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
CREATE FUNCTION transactions_import_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.unconfirmed AND NOT OLD.unconfirmed THEN
        RAISE EXCEPTION 'a confirmed transaction cannot become unconfirmed' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.unconfirmed AND NOT NEW.unconfirmed AND NEW.import_confirmed_by IS NULL THEN
        RAISE EXCEPTION 'confirming an import names who confirmed it' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER transactions_import_guard BEFORE UPDATE ON transactions
    FOR EACH ROW EXECUTE FUNCTION transactions_import_guard();
