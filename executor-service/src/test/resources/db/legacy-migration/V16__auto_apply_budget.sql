-- The auto-apply budget: what the tier rules may apply without a person is bounded in count and amount per turn, per
-- user per rolling 24 hours and per tenant per rolling 24 hours. An action the budget (or a tainted turn) keeps from
-- applying waits for a person, with the reason on the action.

-- Each automatic application spends one entry, in the staging transaction that applies it (rolled back with it).
-- Append-only for the executor: it can neither change nor remove what was spent.
CREATE TABLE auto_apply_spends (
    action_id uuid          PRIMARY KEY REFERENCES actions (id),
    tenant_id text          NOT NULL,
    user_id   text          NOT NULL,
    turn_id   uuid,
    amount    numeric(14,2) NOT NULL CHECK (amount >= 0),
    spent_at  timestamptz   NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX auto_apply_spends_by_tenant ON auto_apply_spends (tenant_id, spent_at);
CREATE INDEX auto_apply_spends_by_user ON auto_apply_spends (tenant_id, user_id, spent_at);
CREATE INDEX auto_apply_spends_by_turn ON auto_apply_spends (tenant_id, user_id, turn_id) WHERE turn_id IS NOT NULL;
ALTER TABLE auto_apply_spends ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON auto_apply_spends
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
-- Read-only for the executor: it spends only through the function below, which checks the bounds.
GRANT SELECT ON auto_apply_spends TO ${executorRole};

-- Spends one automatic application if it fits every bound, else spends nothing and names the first bound it would
-- pass: 'tenant_day', 'user_day' or 'turn'. Concurrent callers of one tenant take turns on a transaction-scoped
-- advisory lock, and each statement below reads what earlier holders committed (READ COMMITTED: the function refuses
-- any other isolation, whose snapshot would predate the lock), so two executors cannot both spend the last unit. Runs
-- as the owner (the executor's role cannot insert spends itself) for the tenant the caller's transaction named only.
-- The bounds are the caller's (the tenant's policy or the deployment's default): a missing one is an error, never "no
-- limit". A null turn is a turn of its own. Windows and stamps use the clock, not the transaction's start.
CREATE FUNCTION spend_auto_apply_budget(p_tenant text, p_user text, p_turn uuid, p_action uuid, p_amount numeric,
                                        p_turn_count integer, p_turn_amount numeric,
                                        p_user_count integer, p_user_amount numeric,
                                        p_tenant_count integer, p_tenant_amount numeric)
    RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    used_count  bigint;
    used_amount numeric;
    since       timestamptz;
BEGIN
    IF p_tenant IS DISTINCT FROM current_tenant() THEN
        RAISE EXCEPTION 'a budget is spent in the tenant the transaction named' USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF num_nulls(p_tenant, p_user, p_action, p_amount, p_turn_count, p_turn_amount, p_user_count, p_user_amount,
                 p_tenant_count, p_tenant_amount) > 0 OR p_amount < 0 THEN
        RAISE EXCEPTION 'every auto-apply bound and the amount are required' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'the auto-apply budget is spent under READ COMMITTED only'
            USING ERRCODE = 'invalid_transaction_state';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('countersign.auto_apply_budget'), hashtext(p_tenant));
    since := clock_timestamp() - interval '24 hours';
    SELECT count(*), coalesce(sum(amount), 0) INTO used_count, used_amount FROM auto_apply_spends
        WHERE tenant_id = p_tenant AND spent_at > since;
    IF used_count + 1 > p_tenant_count OR used_amount + p_amount > p_tenant_amount THEN
        RETURN 'tenant_day';
    END IF;
    SELECT count(*), coalesce(sum(amount), 0) INTO used_count, used_amount FROM auto_apply_spends
        WHERE tenant_id = p_tenant AND user_id = p_user AND spent_at > since;
    IF used_count + 1 > p_user_count OR used_amount + p_amount > p_user_amount THEN
        RETURN 'user_day';
    END IF;
    IF p_turn IS NOT NULL THEN
        SELECT count(*), coalesce(sum(amount), 0) INTO used_count, used_amount FROM auto_apply_spends
            WHERE tenant_id = p_tenant AND user_id = p_user AND turn_id = p_turn;
    ELSE
        used_count := 0;
        used_amount := 0;
    END IF;
    IF used_count + 1 > p_turn_count OR used_amount + p_amount > p_turn_amount THEN
        RETURN 'turn';
    END IF;
    INSERT INTO auto_apply_spends (action_id, tenant_id, user_id, turn_id, amount)
        VALUES (p_action, p_tenant, p_user, p_turn, p_amount);
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION spend_auto_apply_budget(text, text, uuid, uuid, numeric, integer, numeric, integer, numeric,
                                               integer, numeric) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spend_auto_apply_budget(text, text, uuid, uuid, numeric, integer, numeric, integer, numeric,
                                                  integer, numeric) TO ${executorRole};

-- The database's backstop: no action is applied automatically without its spend in the same transaction (checked at
-- commit, so the spend and the confirmation may come in either order).
CREATE FUNCTION actions_auto_apply_spent() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.auto_applied AND NOT EXISTS (SELECT 1 FROM auto_apply_spends s WHERE s.action_id = NEW.id) THEN
        RAISE EXCEPTION 'an action applied automatically spends the auto-apply budget' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER actions_auto_apply_spent AFTER UPDATE OF auto_applied ON actions
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.auto_applied AND NOT OLD.auto_applied)
    EXECUTE FUNCTION actions_auto_apply_spent();

-- Why an action whose tier could apply on arrival waits for a person (the budget, or a turn that read text its user
-- did not write). Set once, while the action is proposed; null for actions that simply wait for a person.
-- context_clean: the agent's mark on the proposal (its model's context held only its user's own text); set at insert,
-- never changed. Text an action writes (a note, a wallet name, a plan) counts as its requester's own only if it was
-- proposed clean, so text a steered model wrote stays foreign after a person confirmed it.
ALTER TABLE actions ADD COLUMN held_reason text CHECK (char_length(held_reason) <= 300),
                    ADD COLUMN context_clean boolean NOT NULL DEFAULT false;
CREATE FUNCTION actions_auto_apply_marks_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.held_reason IS DISTINCT FROM OLD.held_reason
            AND (OLD.held_reason IS NOT NULL OR OLD.status <> 'proposed' OR NEW.status <> 'proposed') THEN
        RAISE EXCEPTION 'the reason an action is held is set once, while it is proposed'
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.context_clean IS DISTINCT FROM OLD.context_clean THEN
        RAISE EXCEPTION 'the mark a proposal arrived with never changes' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER actions_auto_apply_marks_guard BEFORE UPDATE OF held_reason, context_clean ON actions
    FOR EACH ROW EXECUTE FUNCTION actions_auto_apply_marks_guard();
GRANT SELECT (context_clean) ON actions TO ${readerRole};

-- Which action last wrote a row's free text (an edit's note or category, a rename's name, a plan revision); null: the
-- text came with the row (its source action, or the tenant's setup for wallets). The agent reads a row's text as its
-- user's own only if that action was requested by the user and proposed clean.
ALTER TABLE transactions ADD COLUMN text_action_id uuid;
ALTER TABLE wallets ADD COLUMN name_action_id uuid;
ALTER TABLE training_plans ADD COLUMN text_action_id uuid;
GRANT UPDATE (text_action_id) ON transactions TO ${executorRole};
GRANT UPDATE (text_action_id) ON training_plans TO ${executorRole};

-- The tenant's budget; NULL: the deployment's default (countersign.actions.auto-apply-budget.*). Audited with the
-- other policies.
ALTER TABLE tenant_policies
    ADD COLUMN auto_apply_turn_count integer CHECK (auto_apply_turn_count >= 0),
    ADD COLUMN auto_apply_turn_amount numeric(14, 2) CHECK (auto_apply_turn_amount >= 0),
    ADD COLUMN auto_apply_user_day_count integer CHECK (auto_apply_user_day_count >= 0),
    ADD COLUMN auto_apply_user_day_amount numeric(14, 2) CHECK (auto_apply_user_day_amount >= 0),
    ADD COLUMN auto_apply_tenant_day_count integer CHECK (auto_apply_tenant_day_count >= 0),
    ADD COLUMN auto_apply_tenant_day_amount numeric(14, 2) CHECK (auto_apply_tenant_day_amount >= 0),
    -- All six or none: a half-set budget would read as "no limit" for the missing bounds.
    ADD CONSTRAINT auto_apply_budget_whole CHECK (num_nonnulls(auto_apply_turn_count, auto_apply_turn_amount,
        auto_apply_user_day_count, auto_apply_user_day_amount, auto_apply_tenant_day_count,
        auto_apply_tenant_day_amount) IN (0, 6));
ALTER TABLE tenant_policy_history
    ADD COLUMN auto_apply_turn_count integer,
    ADD COLUMN auto_apply_turn_amount numeric(14, 2),
    ADD COLUMN auto_apply_user_day_count integer,
    ADD COLUMN auto_apply_user_day_amount numeric(14, 2),
    ADD COLUMN auto_apply_tenant_day_count integer,
    ADD COLUMN auto_apply_tenant_day_amount numeric(14, 2);

-- CREATE OR REPLACE keeps the function's owner and grants but resets SECURITY DEFINER and search_path: both are set
-- again here (V7 set them first).
CREATE OR REPLACE FUNCTION tenant_policy_history_append() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO tenant_policy_history (tenant_id, agent_writes, changed_by, high_approvals, high_needs_other_approver,
                                       high_impact_threshold, external_sends, auto_apply_turn_count,
                                       auto_apply_turn_amount, auto_apply_user_day_count, auto_apply_user_day_amount,
                                       auto_apply_tenant_day_count, auto_apply_tenant_day_amount)
    VALUES (NEW.tenant_id, NEW.agent_writes, NEW.updated_by, NEW.high_approvals, NEW.high_needs_other_approver,
            NEW.high_impact_threshold, NEW.external_sends, NEW.auto_apply_turn_count, NEW.auto_apply_turn_amount,
            NEW.auto_apply_user_day_count, NEW.auto_apply_user_day_amount, NEW.auto_apply_tenant_day_count,
            NEW.auto_apply_tenant_day_amount);
    RETURN NEW;
END;
$$;
REVOKE ALL ON FUNCTION tenant_policy_history_append() FROM PUBLIC;
