-- An imported (machine-extracted) row goes from unconfirmed to confirmed only, never back, and confirming it names who
-- did. What else holds for imports (who may confirm or reject, approvals, the trail) is in R__import_gate.sql and
-- R__import_history.sql.
CREATE OR REPLACE FUNCTION transactions_import_guard() RETURNS trigger LANGUAGE plpgsql
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

DROP TRIGGER IF EXISTS transactions_import_guard ON transactions;
CREATE TRIGGER transactions_import_guard BEFORE UPDATE ON transactions
    FOR EACH ROW EXECUTE FUNCTION transactions_import_guard();
