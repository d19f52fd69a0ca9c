-- CSV imports go through the same gate as actions (see docs/security/imports.md). ImportService applies the rules and
-- answers with problem+json; the triggers below are the backstop for statements that skip it, and the trail:
--   * a row is imported only into a wallet its importer owns (the tenant's wallets.owner_id);
--   * a row is born unconfirmed and names its importer; who confirmed it is set by the confirming move, never after;
--   * a row at or above the tenant's high-impact threshold (the catalogue's rule for an expense, threshold read when
--     it is confirmed) is HIGH and follows the tenant's approval policy for HIGH actions: never confirmed by its
--     importer where the policy needs another approver, and confirmed only with k distinct approvals recorded in
--     import_approvals where it needs k > 1 (the importer's not counted where another approver is needed);
--   * every import and every confirmation appends a row to import_history (who, which row, when, the tier, the
--     channel), written by a SECURITY DEFINER trigger: the executor role may read its tenant's history, never write it.
-- Limits: the database trusts the names the executor writes (imported_by, import_confirmed_by come from the caller's
-- token, checked by the application); a compromised executor could name another confirmer or record approvals.

-- The tier an imported row has in its tenant: HIGH at or above the high-impact threshold, else LOW. The default
-- (500.00) mirrors TierPolicy.DEFAULT in shared-contracts (ImportGateTest checks they agree).
CREATE FUNCTION import_tier(p_tenant_id text, p_amount numeric) RETURNS text LANGUAGE sql STABLE
    SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT CASE WHEN p_amount >= coalesce((SELECT p.high_impact_threshold FROM tenant_policies p
                                           WHERE p.tenant_id = p_tenant_id), 500.00)
                THEN 'high' ELSE 'low' END;
$$;

-- Approvals of HIGH imported rows under a k-of-n policy, one per approver, append-only (as action_approvals).
CREATE TABLE import_approvals (
    transaction_id uuid        NOT NULL REFERENCES transactions (id),
    tenant_id      text        NOT NULL,
    approver       text        NOT NULL,
    channel        text        NOT NULL,
    at             timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (transaction_id, approver)
);
CREATE TRIGGER import_approvals_frozen BEFORE UPDATE OR DELETE ON import_approvals
    FOR EACH ROW EXECUTE FUNCTION action_history_frozen();
CREATE TRIGGER import_approvals_no_truncate BEFORE TRUNCATE ON import_approvals
    FOR EACH STATEMENT EXECUTE FUNCTION action_history_frozen();

CREATE FUNCTION transactions_import_gate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    needed      integer;
    needs_other boolean;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.import_confirmed_by IS NOT NULL OR (NEW.imported_by IS NOT NULL AND NOT NEW.unconfirmed) THEN
            RAISE EXCEPTION 'an import is stored unconfirmed and confirmed afterwards' USING ERRCODE = 'check_violation';
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
    -- What was imported is what gets confirmed: an unconfirmed row changes only by being confirmed (no amount moved
    -- under the tier or the approvals in the same statement).
    IF OLD.unconfirmed AND (NEW.wallet_id, NEW.amount, NEW.category, NEW.description, NEW.occurred_on, NEW.deleted_at)
            IS DISTINCT FROM (OLD.wallet_id, OLD.amount, OLD.category, OLD.description, OLD.occurred_on, OLD.deleted_at)
            THEN
        RAISE EXCEPTION 'an unconfirmed import changes only by being confirmed' USING ERRCODE = 'check_violation';
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
CREATE TRIGGER transactions_import_gate BEFORE INSERT OR UPDATE ON transactions
    FOR EACH ROW EXECUTE FUNCTION transactions_import_gate();

-- The imports' trail, append-only, one row per imported and per confirmed transaction.
CREATE TABLE import_history (
    id             bigserial     PRIMARY KEY,
    transaction_id uuid          NOT NULL REFERENCES transactions (id),
    tenant_id      text          NOT NULL,
    wallet_id      uuid          NOT NULL,
    event          text          NOT NULL CHECK (event IN ('imported', 'approved', 'confirmed')),
    actor          text          NOT NULL,
    channel        text          NOT NULL,
    amount         numeric(14,2) NOT NULL,
    tier           text          NOT NULL CHECK (tier IN ('low', 'high')),
    at             timestamptz   NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX import_history_by_transaction ON import_history (tenant_id, transaction_id, id);

-- Who acts comes from the row (imported_by, import_confirmed_by: required by the checks above and in V12), the
-- channel from the transaction's setting (TenantTransactions), 'sql' without one.
CREATE FUNCTION import_history_append() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO import_history (transaction_id, tenant_id, wallet_id, event, actor, channel, amount, tier)
    VALUES (NEW.id, NEW.tenant_id, NEW.wallet_id, CASE WHEN TG_OP = 'INSERT' THEN 'imported' ELSE 'confirmed' END,
            CASE WHEN TG_OP = 'INSERT' THEN NEW.imported_by ELSE NEW.import_confirmed_by END,
            coalesce(nullif(current_setting('countersign.channel', true), ''), 'sql'), NEW.amount,
            import_tier(NEW.tenant_id, NEW.amount));
    RETURN NULL;
END
$$;
CREATE TRIGGER transactions_imported AFTER INSERT ON transactions
    FOR EACH ROW WHEN (NEW.unconfirmed) EXECUTE FUNCTION import_history_append();
CREATE TRIGGER transactions_import_confirmed AFTER UPDATE OF unconfirmed ON transactions
    FOR EACH ROW WHEN (OLD.unconfirmed AND NOT NEW.unconfirmed) EXECUTE FUNCTION import_history_append();

-- An approval under a k-of-n policy is a step of the trail too (actor and channel from the approval).
CREATE FUNCTION import_approval_history_append() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO import_history (transaction_id, tenant_id, wallet_id, event, actor, channel, amount, tier)
    SELECT t.id, t.tenant_id, t.wallet_id, 'approved', NEW.approver, NEW.channel, t.amount,
           import_tier(t.tenant_id, t.amount)
    FROM transactions t WHERE t.id = NEW.transaction_id AND t.tenant_id = NEW.tenant_id;
    RETURN NULL;
END
$$;
CREATE TRIGGER import_approvals_history AFTER INSERT ON import_approvals
    FOR EACH ROW EXECUTE FUNCTION import_approval_history_append();

CREATE TRIGGER import_history_frozen BEFORE UPDATE OR DELETE ON import_history
    FOR EACH ROW EXECUTE FUNCTION action_history_frozen();
CREATE TRIGGER import_history_no_truncate BEFORE TRUNCATE ON import_history
    FOR EACH STATEMENT EXECUTE FUNCTION action_history_frozen();

DO $$
DECLARE
    isolated text;
BEGIN
    FOREACH isolated IN ARRAY ARRAY['import_history', 'import_approvals'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', isolated);
        EXECUTE format('CREATE POLICY tenant_rows ON %I'
                       ' USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant())', isolated);
    END LOOP;
END
$$;
GRANT SELECT ON import_history TO ${executorRole};
GRANT SELECT, INSERT ON import_approvals TO ${executorRole};
REVOKE ALL ON FUNCTION import_tier(text, numeric), transactions_import_gate(), import_history_append(),
    import_approval_history_append() FROM PUBLIC;
