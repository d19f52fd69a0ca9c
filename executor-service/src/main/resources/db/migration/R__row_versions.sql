-- A row's version moves on every change, whoever makes it: the target_changed check relies on it, so it must not
-- depend on each writer remembering to bump it (or being unable to set it back). Every table an action can change in
-- place (or show as its target) has this trigger.
CREATE OR REPLACE FUNCTION bump_version() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp
    AS $$
BEGIN
    NEW.version := OLD.version + 1;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS transactions_bump_version ON transactions;
CREATE TRIGGER transactions_bump_version BEFORE UPDATE ON transactions FOR EACH ROW EXECUTE FUNCTION bump_version();
DROP TRIGGER IF EXISTS wallets_bump_version ON wallets;
CREATE TRIGGER wallets_bump_version BEFORE UPDATE ON wallets FOR EACH ROW EXECUTE FUNCTION bump_version();
DROP TRIGGER IF EXISTS training_plans_bump_version ON training_plans;
CREATE TRIGGER training_plans_bump_version BEFORE UPDATE ON training_plans
    FOR EACH ROW EXECUTE FUNCTION bump_version();
DROP TRIGGER IF EXISTS support_cases_bump_version ON support_cases;
CREATE TRIGGER support_cases_bump_version BEFORE UPDATE ON support_cases FOR EACH ROW EXECUTE FUNCTION bump_version();
DROP TRIGGER IF EXISTS wallet_transfers_bump_version ON wallet_transfers;
CREATE TRIGGER wallet_transfers_bump_version BEFORE UPDATE ON wallet_transfers
    FOR EACH ROW EXECUTE FUNCTION bump_version();
