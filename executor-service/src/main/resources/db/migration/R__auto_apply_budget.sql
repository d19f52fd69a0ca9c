-- The auto-apply budget (V16): what the tier rules may apply without a person is bounded in count and amount per turn,
-- per user per rolling 24 hours and per tenant per rolling 24 hours.
--
-- Spends one automatic application if it fits every bound, else spends nothing and names the first bound it would
-- pass: 'tenant_day', 'user_day' or 'turn'. Concurrent callers of one tenant take turns on a transaction-scoped
-- advisory lock, and each statement below reads what earlier holders committed (READ COMMITTED: the function refuses
-- any other isolation, whose snapshot would predate the lock), so two executors cannot both spend the last unit. Runs
-- as the owner (the executor's role cannot insert spends itself) for the tenant the caller's transaction named only.
-- The bounds are the caller's (the tenant's policy or the deployment's default): a missing one is an error, never "no
-- limit". A null turn is a turn of its own. Windows and stamps use the clock, not the transaction's start.
-- search_path pinned with pg_temp last (see V7); only the executor's role may call it.
CREATE OR REPLACE FUNCTION spend_auto_apply_budget(p_tenant text, p_user text, p_turn uuid, p_action uuid,
                                                   p_amount numeric, p_turn_count integer, p_turn_amount numeric,
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
CREATE OR REPLACE FUNCTION actions_auto_apply_spent() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.auto_applied AND NOT EXISTS (SELECT 1 FROM auto_apply_spends s WHERE s.action_id = NEW.id) THEN
        RAISE EXCEPTION 'an action applied automatically spends the auto-apply budget' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS actions_auto_apply_spent ON actions;
CREATE CONSTRAINT TRIGGER actions_auto_apply_spent AFTER UPDATE OF auto_applied ON actions
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.auto_applied AND NOT OLD.auto_applied)
    EXECUTE FUNCTION actions_auto_apply_spent();
