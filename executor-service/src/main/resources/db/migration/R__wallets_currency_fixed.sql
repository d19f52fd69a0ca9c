-- A wallet's currency never changes, whoever writes: its transactions and transfers are amounts in it (a transfer's
-- legs are checked against both wallets' currency at commit, R__wallet_transfers.sql), so changing it would change
-- what every one of them means. No action kind may change it (no declaration lists it as editable).
CREATE OR REPLACE FUNCTION wallets_currency_fixed() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.currency IS DISTINCT FROM OLD.currency THEN
        RAISE EXCEPTION 'a wallet''s currency never changes' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS wallets_currency_fixed ON wallets;
CREATE TRIGGER wallets_currency_fixed BEFORE UPDATE OF currency ON wallets
    FOR EACH ROW EXECUTE FUNCTION wallets_currency_fixed();
