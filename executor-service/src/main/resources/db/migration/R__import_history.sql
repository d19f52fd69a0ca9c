-- The imports' trail (import_history, append-only: R__append_only_trails.sql): every import, approval, confirmation and
-- rejection appends a row with who, which row, when, the tier and the channel. Written by these triggers, which run as
-- the owner: the executor role may read its tenant's history, never write it. search_path pinned with pg_temp last;
-- PUBLIC may call neither function.
-- Who acts comes from the row (imported_by, import_confirmed_by, import_rejected_by: required by the import gate and
-- V12's check), the channel from the transaction's setting (TenantTransactions), 'sql' without one.
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
REVOKE ALL ON FUNCTION import_history_append() FROM PUBLIC;

DROP TRIGGER IF EXISTS transactions_imported ON transactions;
CREATE TRIGGER transactions_imported AFTER INSERT ON transactions
    FOR EACH ROW WHEN (NEW.unconfirmed) EXECUTE FUNCTION import_history_append();
DROP TRIGGER IF EXISTS transactions_import_confirmed ON transactions;
CREATE TRIGGER transactions_import_confirmed AFTER UPDATE OF unconfirmed ON transactions
    FOR EACH ROW WHEN (OLD.unconfirmed AND NOT NEW.unconfirmed) EXECUTE FUNCTION import_history_append();
DROP TRIGGER IF EXISTS transactions_import_rejected ON transactions;
CREATE TRIGGER transactions_import_rejected AFTER UPDATE OF import_rejected_by ON transactions
    FOR EACH ROW WHEN (OLD.import_rejected_by IS NULL AND NEW.import_rejected_by IS NOT NULL)
    EXECUTE FUNCTION import_history_append();

-- An approval under a k-of-n policy is a step of the trail too (actor and channel from the approval).
CREATE OR REPLACE FUNCTION import_approval_history_append() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO import_history (transaction_id, tenant_id, wallet_id, event, actor, channel, amount, tier)
    SELECT t.id, t.tenant_id, t.wallet_id, 'approved', NEW.approver, NEW.channel, t.amount,
           import_tier(t.tenant_id, t.amount)
    FROM transactions t WHERE t.id = NEW.transaction_id AND t.tenant_id = NEW.tenant_id;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION import_approval_history_append() FROM PUBLIC;

DROP TRIGGER IF EXISTS import_approvals_history ON import_approvals;
CREATE TRIGGER import_approvals_history AFTER INSERT ON import_approvals
    FOR EACH ROW EXECUTE FUNCTION import_approval_history_append();
