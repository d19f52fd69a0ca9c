-- The ledger of transfers stays balanced, whoever writes (V31). Checked at commit (deferred constraint triggers), so
-- a transfer and its legs are written by separate statements of one transaction: at every commit each transfer touched
-- has exactly its legs (1 and 2; and 3 and 4 once reversed), each on its wallet with its amount, summing to zero, and
-- both wallets hold the transfer's currency (R__wallets_currency_fixed.sql keeps it so).
-- Legs are never updated or deleted; of a transfer only reversed_at may be set, once (and its version moves,
-- R__row_versions.sql); no transfer is deleted.
CREATE OR REPLACE FUNCTION wallet_transfer_balanced() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    transfer_id uuid;
    transfer    wallet_transfers;
    expected    jsonb;
    actual      jsonb;
BEGIN
    -- Each branch is planned only when it runs (per table), so neither names a column the other table lacks.
    IF TG_TABLE_NAME = 'wallet_transfers' THEN
        transfer_id := NEW.id;
    ELSE
        transfer_id := NEW.transfer_id;
    END IF;
    SELECT * INTO transfer FROM wallet_transfers t WHERE t.id = transfer_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'a transfer leg without its transfer' USING ERRCODE = 'check_violation';
    END IF;
    expected := jsonb_build_array(
        jsonb_build_array(1, transfer.from_wallet_id, -transfer.amount),
        jsonb_build_array(2, transfer.to_wallet_id, transfer.amount));
    IF transfer.reversed_at IS NOT NULL THEN
        expected := expected || jsonb_build_array(
            jsonb_build_array(3, transfer.from_wallet_id, transfer.amount),
            jsonb_build_array(4, transfer.to_wallet_id, -transfer.amount));
    END IF;
    SELECT coalesce(jsonb_agg(jsonb_build_array(leg, wallet_id, amount) ORDER BY leg), '[]'::jsonb) INTO actual
    FROM wallet_transfer_legs l WHERE l.transfer_id = transfer.id;
    IF (SELECT count(*) FROM wallets w WHERE w.id IN (transfer.from_wallet_id, transfer.to_wallet_id)
            AND w.tenant_id = transfer.tenant_id AND w.currency = transfer.currency) <> 2 THEN
        RAISE EXCEPTION 'transfer % moves % between wallets that do not both hold it', transfer.id, transfer.currency
            USING ERRCODE = 'check_violation';
    END IF;
    IF actual IS DISTINCT FROM expected THEN
        RAISE EXCEPTION 'transfer % is not balanced: legs % where % are due', transfer.id, actual, expected
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS wallet_transfers_balanced ON wallet_transfers;
CREATE CONSTRAINT TRIGGER wallet_transfers_balanced AFTER INSERT OR UPDATE ON wallet_transfers
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION wallet_transfer_balanced();
DROP TRIGGER IF EXISTS wallet_transfer_legs_balanced ON wallet_transfer_legs;
CREATE CONSTRAINT TRIGGER wallet_transfer_legs_balanced AFTER INSERT ON wallet_transfer_legs
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION wallet_transfer_balanced();

CREATE OR REPLACE FUNCTION wallet_transfer_frozen() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_TABLE_NAME = 'wallet_transfer_legs' OR TG_OP IN ('DELETE', 'TRUNCATE') THEN
        RAISE EXCEPTION '% of % is refused: the ledger of transfers is append-only (undo adds reversing legs)', TG_OP,
            TG_TABLE_NAME USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.reversed_at IS NOT NULL OR NEW.reversed_at IS NULL
            OR (to_jsonb(NEW) - 'reversed_at' - 'version') IS DISTINCT FROM (to_jsonb(OLD) - 'reversed_at' - 'version') THEN
        RAISE EXCEPTION 'a transfer is only ever reversed, once' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS wallet_transfers_frozen ON wallet_transfers;
CREATE TRIGGER wallet_transfers_frozen BEFORE UPDATE OR DELETE ON wallet_transfers
    FOR EACH ROW EXECUTE FUNCTION wallet_transfer_frozen();
DROP TRIGGER IF EXISTS wallet_transfer_legs_frozen ON wallet_transfer_legs;
CREATE TRIGGER wallet_transfer_legs_frozen BEFORE UPDATE OR DELETE ON wallet_transfer_legs
    FOR EACH ROW EXECUTE FUNCTION wallet_transfer_frozen();
DROP TRIGGER IF EXISTS wallet_transfers_truncated ON wallet_transfers;
CREATE TRIGGER wallet_transfers_truncated BEFORE TRUNCATE ON wallet_transfers
    FOR EACH STATEMENT EXECUTE FUNCTION wallet_transfer_frozen();
DROP TRIGGER IF EXISTS wallet_transfer_legs_truncated ON wallet_transfer_legs;
CREATE TRIGGER wallet_transfer_legs_truncated BEFORE TRUNCATE ON wallet_transfer_legs
    FOR EACH STATEMENT EXECUTE FUNCTION wallet_transfer_frozen();
