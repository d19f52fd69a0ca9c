-- ledger.wallet.transfer's write: one transfer (its id the action's) and its two legs, between two wallets of the
-- transaction's tenant in the same currency. The database keeps the ledger balanced and the legs unchangeable
-- (R__wallet_transfers.sql); one action writes at most one transfer.
CREATE OR REPLACE FUNCTION ledger_wallet_transfer_write(p_action uuid, p_tenant text, p_requester text, p_params jsonb,
                                                        p_target_version bigint)
    RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_from uuid := (p_params ->> 'fromWalletId')::uuid;
    v_to uuid := (p_params ->> 'toWalletId')::uuid;
    v_amount numeric := (p_params ->> 'amount')::numeric;
    v_from_currency text;
    v_to_currency text;
    v_version bigint;
BEGIN
    SELECT f.currency, t.currency INTO v_from_currency, v_to_currency
    FROM wallets f JOIN wallets t ON t.tenant_id = f.tenant_id
    WHERE f.id = v_from AND t.id = v_to AND current_tenant() = p_tenant;
    IF NOT FOUND THEN
        PERFORM kind_refuse('target_not_found', 'a wallet of this transfer does not exist (any more) in this tenant');
    END IF;
    IF v_from_currency <> v_to_currency THEN
        PERFORM kind_refuse('currency_mismatch', 'the wallets hold different currencies; a transfer converts nothing');
    END IF;
    INSERT INTO wallet_transfers (id, tenant_id, from_wallet_id, to_wallet_id, amount, currency, occurred_on,
                                  source_action_id)
    VALUES (p_action, p_tenant, v_from, v_to, v_amount, v_from_currency, (p_params ->> 'occurredOn')::date, p_action)
    RETURNING version INTO v_version;
    INSERT INTO wallet_transfer_legs (transfer_id, tenant_id, leg, wallet_id, amount)
    VALUES (p_action, p_tenant, 1, v_from, -v_amount), (p_action, p_tenant, 2, v_to, v_amount);
    RETURN jsonb_build_object('transferId', p_action::text, 'fromWalletId', p_params ->> 'fromWalletId',
                              'toWalletId', p_params ->> 'toWalletId', 'amount', v_amount::text,
                              'currency', v_from_currency, 'legs', 2, 'version', v_version);
END
$$;
REVOKE ALL ON FUNCTION ledger_wallet_transfer_write(uuid, text, text, jsonb, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger_wallet_transfer_write(uuid, text, text, jsonb, bigint) TO ${executorRole};

-- Its undo: adds the two legs that reverse the transfer and marks it reversed, if nothing reversed it since.
CREATE OR REPLACE FUNCTION ledger_wallet_transfer_undo(p_action uuid, p_tenant text, p_params jsonb, p_result jsonb,
                                                       p_target_before jsonb)
    RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_version bigint := kind_written_version(p_result);
    v_transfer record;
BEGIN
    UPDATE wallet_transfers SET reversed_at = now()
    WHERE id = p_action AND current_tenant() = p_tenant AND version = v_version AND reversed_at IS NULL
    RETURNING id, tenant_id, from_wallet_id, to_wallet_id, amount INTO v_transfer;
    IF NOT FOUND THEN
        PERFORM kind_changed_since('transfer');
    END IF;
    INSERT INTO wallet_transfer_legs (transfer_id, tenant_id, leg, wallet_id, amount)
    VALUES (v_transfer.id, v_transfer.tenant_id, 3, v_transfer.from_wallet_id, v_transfer.amount),
           (v_transfer.id, v_transfer.tenant_id, 4, v_transfer.to_wallet_id, -v_transfer.amount);
END
$$;
REVOKE ALL ON FUNCTION ledger_wallet_transfer_undo(uuid, text, jsonb, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger_wallet_transfer_undo(uuid, text, jsonb, jsonb, jsonb) TO ${executorRole};
