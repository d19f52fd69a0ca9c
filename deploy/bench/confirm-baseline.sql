-- The confirm benchmark's SQL baseline (deploy/local-stack ConfirmThroughputBenchmark): the executor's own statements
-- for a person's confirm of a LOW ledger row as they were when issue 41 started (commit 60e2add, five round trips),
-- and the same work as one PL/pgSQL call. Frozen since (issue 41: a heavier or lighter confirm in the service must
-- not move the bar); executor-service's ConfirmBaselineSqlTest fails if this file changes, and runs its function
-- against today's schema. Do not edit.

-- statement: settings
SELECT set_config('countersign.tenant_id', $1, true), set_config('countersign.actor', $2, true), set_config('countersign.channel', $3, true), set_config('countersign.reason', $4, true);

-- statement: lock_for_person
SELECT token_hash, expires_at > now() AS open, id, tenant_id, requested_by, conversation_id, turn_id, kind, tier, status, params::text AS params, params_hash, summary, proposed_at, expires_at, confirmed_by, confirmed_at, executed_at, result::text AS result, idempotency_key(id) AS idempotency_key, target_version, target_before::text AS target_before, auto_applied, undone_by, undone_at, trace_parent, held_reason, target_owner FROM actions WHERE id = $1 AND current_tenant() = $2 FOR UPDATE;

-- statement: confirm
UPDATE actions SET status = 'confirmed', confirmed_by = $4, confirmed_at = now(), version = version + 1
WHERE id = $1 AND current_tenant() = $2 AND token_hash = $3 AND status = 'proposed' AND expires_at > now()
RETURNING id, tenant_id, requested_by, conversation_id, turn_id, kind, tier, status, params::text AS params, params_hash, summary, proposed_at, expires_at, confirmed_by, confirmed_at, executed_at, result::text AS result, idempotency_key(id) AS idempotency_key, target_version, target_before::text AS target_before, auto_applied, undone_by, undone_at, trace_parent, held_reason, target_owner;

-- statement: savepoint
SAVEPOINT execute_action;

-- statement: insert_transaction
INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, description, occurred_on,
                          source_action_id)
SELECT $1, w.tenant_id, w.id, $4, $5, $6, $7, $8
FROM wallets w WHERE w.id = $3 AND current_tenant() = $2
RETURNING id, wallet_id, amount::text AS amount, version;

-- statement: mark_executed
UPDATE actions SET status = 'executed', result = $2::text::jsonb, executed_at = now(), version = version + 1 WHERE id = $1 AND status = 'confirmed' RETURNING id, tenant_id, requested_by, conversation_id, turn_id, kind, tier, status, params::text AS params, params_hash, summary, proposed_at, expires_at, confirmed_by, confirmed_at, executed_at, result::text AS result, idempotency_key(id) AS idempotency_key, target_version, target_before::text AS target_before, auto_applied, undone_by, undone_at, trace_parent, held_reason, target_owner;

-- statement: append_outbox
WITH ledger AS (
    INSERT INTO conversation_events (event_id, tenant_id, user_id, conversation_id, type,
                                     occurred_at, payload)
    SELECT $1, $2, $6, $7, $8, $9, $5::text::jsonb WHERE $6::text IS NOT NULL AND $7::text IS NOT NULL
    ON CONFLICT (event_id) DO NOTHING)
INSERT INTO outbox (event_id, tenant_id, topic, message_key, payload) VALUES ($1, $2, $3, $4, $5);

-- function: one round trip for the same work
CREATE OR REPLACE FUNCTION bench_confirm(p_tenant text, p_user text, p_action uuid, p_transaction uuid,
                                         p_event uuid) RETURNS boolean
    LANGUAGE plpgsql AS $function$
DECLARE
    v_token text;
    v_action record;
    v_written record;
    v_wallet uuid;
    v_amount numeric;
    v_category text;
    v_description text;
    v_occurred_on date;
    v_result text;
    v_payload text;
BEGIN
    PERFORM set_config('countersign.tenant_id', p_tenant, true), set_config('countersign.actor', p_user, true), set_config('countersign.channel', 'http', true), set_config('countersign.reason', '', true);
    SELECT token_hash, expires_at > now() AS open, id, tenant_id, requested_by, conversation_id, turn_id, kind, tier, status, params::text AS params, params_hash, summary, proposed_at, expires_at, confirmed_by, confirmed_at, executed_at, result::text AS result, idempotency_key(id) AS idempotency_key, target_version, target_before::text AS target_before, auto_applied, undone_by, undone_at, trace_parent, held_reason, target_owner FROM actions WHERE id = p_action AND current_tenant() = p_tenant FOR UPDATE INTO v_action;
    IF NOT FOUND THEN RETURN false; END IF;
    v_token := v_action.token_hash;
    UPDATE actions SET status = 'confirmed', confirmed_by = p_user, confirmed_at = now(), version = version + 1
    WHERE id = p_action AND current_tenant() = p_tenant AND token_hash = v_token AND status = 'proposed' AND expires_at > now()
    RETURNING id, tenant_id, requested_by, conversation_id, turn_id, kind, tier, status, params::text AS params, params_hash, summary, proposed_at, expires_at, confirmed_by, confirmed_at, executed_at, result::text AS result, idempotency_key(id) AS idempotency_key, target_version, target_before::text AS target_before, auto_applied, undone_by, undone_at, trace_parent, held_reason, target_owner INTO v_action;
    IF NOT FOUND THEN RETURN false; END IF;
    v_wallet := (v_action.params::jsonb ->> 'walletId')::uuid;
    v_amount := (v_action.params::jsonb ->> 'amount')::numeric;
    v_category := v_action.params::jsonb ->> 'category';
    v_description := v_action.params::jsonb ->> 'description';
    v_occurred_on := (v_action.params::jsonb ->> 'occurredOn')::date;
    BEGIN -- the savepoint
        INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, description, occurred_on,
                                  source_action_id)
        SELECT p_transaction, w.tenant_id, w.id, v_amount, v_category, v_description, v_occurred_on, p_action
        FROM wallets w WHERE w.id = v_wallet AND current_tenant() = p_tenant
        RETURNING id, wallet_id, amount::text AS amount, version INTO v_written;
        IF NOT FOUND THEN RETURN false; END IF;
    EXCEPTION WHEN others THEN
        RETURN false;
    END;
    v_result := jsonb_build_object('transactionId', v_written.id, 'walletId', v_written.wallet_id,
                                   'amount', v_written.amount, 'version', v_written.version)::text;
    UPDATE actions SET status = 'executed', result = v_result::text::jsonb, executed_at = now(), version = version + 1 WHERE id = p_action AND status = 'confirmed' RETURNING id, tenant_id, requested_by, conversation_id, turn_id, kind, tier, status, params::text AS params, params_hash, summary, proposed_at, expires_at, confirmed_by, confirmed_at, executed_at, result::text AS result, idempotency_key(id) AS idempotency_key, target_version, target_before::text AS target_before, auto_applied, undone_by, undone_at, trace_parent, held_reason, target_owner INTO v_action;
    IF NOT FOUND THEN RETURN false; END IF;
    v_payload := jsonb_build_object('type', 'ActionExecuted', 'eventId', p_event, 'schemaVersion', 1, 'occurredAt', v_action.executed_at, 'actionId', p_action, 'tenantId', p_tenant, 'userId', v_action.requested_by, 'conversationId', v_action.conversation_id, 'kind', v_action.kind, 'summary', v_action.summary, 'confirmedBy', v_action.confirmed_by, 'result', v_result::jsonb)::text;
    WITH ledger AS (
        INSERT INTO conversation_events (event_id, tenant_id, user_id, conversation_id, type,
                                         occurred_at, payload)
        SELECT p_event, p_tenant, v_action.requested_by, v_action.conversation_id, 'ActionExecuted', v_action.executed_at, v_payload::text::jsonb WHERE v_action.requested_by::text IS NOT NULL AND v_action.conversation_id::text IS NOT NULL
        ON CONFLICT (event_id) DO NOTHING)
    INSERT INTO outbox (event_id, tenant_id, topic, message_key, payload) VALUES (p_event, p_tenant, 'countersign.actions.outcomes', p_action::text, v_payload);
    RETURN true;
END;
$function$;

