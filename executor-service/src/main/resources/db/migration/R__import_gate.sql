-- CSV imports go through the same gate as actions (see docs/security/imports.md). ImportService applies the rules and
-- answers with problem+json; the trigger below is the backstop for statements that skip it:
--   * a row is imported only into a wallet its importer owns (the tenant's wallets.owner_id);
--   * a row is born unconfirmed and names its importer; who confirmed it is set by the confirming move, never after;
--   * a row at or above the tenant's high-impact threshold (the catalogue's rule for an expense, threshold read when
--     it is confirmed) is HIGH and follows the tenant's approval policy for HIGH actions: never confirmed by its
--     importer where the policy needs another approver, and confirmed only with k distinct approvals recorded in
--     import_approvals where it needs k > 1 (the importer's not counted where another approver is needed);
--   * every step leaves a row in import_history (R__import_history.sql).
-- A person reviewing imported rows may also reject them (V21): a rejected row is removed (deleted_at), stays
-- unconfirmed, names who rejected it, is never confirmed afterwards. So an unconfirmed row changes only by being
-- confirmed or by being rejected; who rejected a row is set by rejecting it and never changes; a row is never imported
-- already rejected. ImportService decides who may reject (the importer, or an approver of the tenant).
-- Limits: the database trusts the names the executor writes (imported_by, import_confirmed_by, import_rejected_by come
-- from the caller's token, checked by the application); a compromised executor could name another confirmer or record
-- approvals.
-- Runs as the owner (it reads the tenant's policy and approvals whatever the caller may read); search_path pinned with
-- pg_temp last; PUBLIC may not call it.
CREATE OR REPLACE FUNCTION transactions_import_gate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    needed      integer;
    needs_other boolean;
    rejecting   boolean;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.import_confirmed_by IS NOT NULL OR NEW.import_rejected_by IS NOT NULL
                OR (NEW.imported_by IS NOT NULL AND NOT NEW.unconfirmed) THEN
            RAISE EXCEPTION 'an import is stored unconfirmed and confirmed or rejected afterwards'
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.unconfirmed AND NOT EXISTS (SELECT 1 FROM wallets w WHERE w.tenant_id = NEW.tenant_id
                                           AND w.id = NEW.wallet_id AND w.owner_id = NEW.imported_by) THEN
            RAISE EXCEPTION 'rows are imported only into a wallet the importer owns' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.imported_by IS DISTINCT FROM OLD.imported_by THEN
        RAISE EXCEPTION 'who imported a row never changes' USING ERRCODE = 'check_violation';
    END IF;
    rejecting := OLD.unconfirmed AND NEW.unconfirmed AND OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL
                 AND OLD.import_rejected_by IS NULL AND NEW.import_rejected_by IS NOT NULL;
    -- What was imported is what gets confirmed or rejected: an unconfirmed row changes only by one of those moves (no
    -- amount moved under the tier or the approvals in the same statement).
    IF OLD.unconfirmed AND (NEW.wallet_id, NEW.amount, NEW.category, NEW.description, NEW.occurred_on)
            IS DISTINCT FROM (OLD.wallet_id, OLD.amount, OLD.category, OLD.description, OLD.occurred_on) THEN
        RAISE EXCEPTION 'an unconfirmed import changes only by being confirmed or rejected'
            USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.unconfirmed AND NEW.deleted_at IS DISTINCT FROM OLD.deleted_at AND NOT rejecting THEN
        RAISE EXCEPTION 'an unconfirmed import is removed only by rejecting it, naming who did'
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.import_rejected_by IS DISTINCT FROM OLD.import_rejected_by AND NOT rejecting THEN
        RAISE EXCEPTION 'who rejected an import is recorded by rejecting it, and never changes'
            USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.unconfirmed AND NOT NEW.unconfirmed AND OLD.import_rejected_by IS NOT NULL THEN
        RAISE EXCEPTION 'a rejected import is never confirmed' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.import_confirmed_by IS DISTINCT FROM OLD.import_confirmed_by
            AND NOT (OLD.unconfirmed AND NOT NEW.unconfirmed) THEN
        RAISE EXCEPTION 'who confirmed an import is recorded by confirming it, and never changes'
            USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.unconfirmed AND NOT NEW.unconfirmed AND import_tier(NEW.tenant_id, NEW.amount) = 'high' THEN
        SELECT p.high_approvals, p.high_needs_other_approver INTO needed, needs_other
        FROM tenant_policies p WHERE p.tenant_id = NEW.tenant_id;
        needed := coalesce(needed, 1);
        needs_other := coalesce(needs_other, false);
        IF needs_other AND NEW.import_confirmed_by = OLD.imported_by THEN
            RAISE EXCEPTION 'a HIGH imported row needs a person other than its importer to confirm it'
                USING ERRCODE = 'check_violation';
        END IF;
        IF needed > 1 AND (SELECT count(*) FROM import_approvals a
                           WHERE a.tenant_id = NEW.tenant_id AND a.transaction_id = NEW.id
                             AND (NOT needs_other OR a.approver <> OLD.imported_by)) < needed THEN
            RAISE EXCEPTION 'a HIGH imported row needs % approvals before it is confirmed', needed
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
REVOKE ALL ON FUNCTION transactions_import_gate() FROM PUBLIC;

DROP TRIGGER IF EXISTS transactions_import_gate ON transactions;
CREATE TRIGGER transactions_import_gate BEFORE INSERT OR UPDATE ON transactions
    FOR EACH ROW EXECUTE FUNCTION transactions_import_gate();
