-- ledger.transaction.create's write (the gate calls it through execute_action): one ledger row, in a wallet of the
-- action's own tenant (looked up inside the INSERT: a wallet of another tenant is not found).
CREATE OR REPLACE FUNCTION ledger_transaction_create_write(p_action uuid, p_tenant text, p_requester text,
                                                           p_params jsonb, p_target_version bigint)
    RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_written record;
BEGIN
    -- A text an edit left as proposed keeps its writer (action_text_writer, R__action_edits.sql); NULL: the action's own.
    INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, description, occurred_on, source_action_id,
                              category_action_id, description_action_id)
    SELECT gen_random_uuid(), w.tenant_id, w.id, (p_params ->> 'amount')::numeric, p_params ->> 'category',
           p_params ->> 'description', (p_params ->> 'occurredOn')::date, p_action,
           NULLIF(action_text_writer(p_action, 'category'), p_action),
           NULLIF(action_text_writer(p_action, 'description'), p_action)
    FROM wallets w WHERE w.id = (p_params ->> 'walletId')::uuid AND current_tenant() = p_tenant
    RETURNING id, wallet_id, amount::text AS amount, version INTO v_written;
    IF NOT FOUND THEN
        PERFORM kind_refuse('target_not_found',
                            format('wallet %s does not exist in this tenant', p_params ->> 'walletId'));
    END IF;
    RETURN jsonb_build_object('transactionId', v_written.id, 'walletId', v_written.wallet_id,
                              'amount', v_written.amount, 'version', v_written.version);
END
$$;
REVOKE ALL ON FUNCTION ledger_transaction_create_write(uuid, text, text, jsonb, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger_transaction_create_write(uuid, text, text, jsonb, bigint) TO ${executorRole};

-- Its undo: marks the created transaction deleted (by this action), if nothing changed it since.
CREATE OR REPLACE FUNCTION ledger_transaction_create_undo(p_action uuid, p_tenant text, p_params jsonb, p_result jsonb,
                                                          p_target_before jsonb)
    RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_version bigint := kind_written_version(p_result);
BEGIN
    UPDATE transactions SET deleted_at = now(), deleted_by_action = p_action
    WHERE id = (p_result ->> 'transactionId')::uuid AND current_tenant() = p_tenant AND version = v_version
      AND deleted_at IS NULL;
    IF NOT FOUND THEN
        PERFORM kind_changed_since('transaction');
    END IF;
END
$$;
REVOKE ALL ON FUNCTION ledger_transaction_create_undo(uuid, text, jsonb, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger_transaction_create_undo(uuid, text, jsonb, jsonb, jsonb) TO ${executorRole};
