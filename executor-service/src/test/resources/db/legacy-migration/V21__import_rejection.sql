-- A person reviewing imported rows may also reject them (issue 18, seed 003): a rejected row is removed (deleted_at),
-- stays unconfirmed, names who rejected it, is never confirmed afterwards, and leaves a 'rejected' step in the trail.
-- ImportService decides who may (the importer, or an approver of the tenant); the database keeps the moves honest:
--   * an unconfirmed row changes only by being confirmed or by being rejected, nothing else about it moves;
--   * who rejected a row is set by rejecting it and never changes; a row is never imported already rejected;
--   * a rejected row is never confirmed.
-- Limit, as in V17: the database trusts the name the executor writes in import_rejected_by.

ALTER TABLE transactions ADD COLUMN import_rejected_by text;
GRANT UPDATE (import_rejected_by) ON transactions TO ${executorRole};

ALTER TABLE import_history DROP CONSTRAINT import_history_event_check;
ALTER TABLE import_history ADD CONSTRAINT import_history_event_check
    CHECK (event IN ('imported', 'approved', 'confirmed', 'rejected'));

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

CREATE OR REPLACE FUNCTION import_history_append() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    step  text;
    actor text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        step := 'imported';
        actor := NEW.imported_by;
    ELSIF NEW.import_rejected_by IS NOT NULL AND OLD.import_rejected_by IS NULL THEN
        step := 'rejected';
        actor := NEW.import_rejected_by;
    ELSE
        step := 'confirmed';
        actor := NEW.import_confirmed_by;
    END IF;
    INSERT INTO import_history (transaction_id, tenant_id, wallet_id, event, actor, channel, amount, tier)
    VALUES (NEW.id, NEW.tenant_id, NEW.wallet_id, step, actor,
            coalesce(nullif(current_setting('countersign.channel', true), ''), 'sql'), NEW.amount,
            import_tier(NEW.tenant_id, NEW.amount));
    RETURN NULL;
END
$$;
CREATE TRIGGER transactions_import_rejected AFTER UPDATE OF import_rejected_by ON transactions
    FOR EACH ROW WHEN (OLD.import_rejected_by IS NULL AND NEW.import_rejected_by IS NOT NULL)
    EXECUTE FUNCTION import_history_append();
