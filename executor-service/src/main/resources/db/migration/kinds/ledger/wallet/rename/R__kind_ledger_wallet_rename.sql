-- ledger.wallet.rename's write: changes the name and nothing else (the currency is never editable), while the wallet
-- still has the version it had at staging; the result records the name's writer before (previousWriters).
CREATE OR REPLACE FUNCTION ledger_wallet_rename_write(p_action uuid, p_tenant text, p_requester text, p_params jsonb,
                                                      p_target_version bigint)
    RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_written record;
BEGIN
    UPDATE wallets w SET name = p_params ->> 'name', name_action_id = p_action, version = w.version + 1
    FROM (SELECT id, name, name_action_id FROM wallets
          WHERE id = (p_params ->> 'walletId')::uuid AND current_tenant() = p_tenant
            AND (p_target_version IS NULL OR version = p_target_version) FOR UPDATE) previous
    WHERE w.id = previous.id
    RETURNING previous.name AS previous_name, previous.name_action_id AS previous_name_writer, w.version
    INTO v_written;
    IF NOT FOUND THEN
        PERFORM kind_target_moved();
    END IF;
    RETURN jsonb_build_object('walletId', p_params ->> 'walletId', 'previousName', v_written.previous_name,
                              'name', p_params ->> 'name', 'version', v_written.version,
                              'previousWriters', jsonb_build_object('name', v_written.previous_name_writer));
END
$$;
REVOKE ALL ON FUNCTION ledger_wallet_rename_write(uuid, text, text, jsonb, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger_wallet_rename_write(uuid, text, text, jsonb, bigint) TO ${executorRole};

-- Its undo: gives the wallet back the name it had when the action was staged, and that name's writer, if nothing
-- changed it since.
CREATE OR REPLACE FUNCTION ledger_wallet_rename_undo(p_action uuid, p_tenant text, p_params jsonb, p_result jsonb,
                                                     p_target_before jsonb)
    RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_version bigint := kind_written_version(p_result);
    v_name_writer uuid := kind_previous_writer(p_result, 'name');
BEGIN
    UPDATE wallets SET name = p_target_before ->> 'name', name_action_id = v_name_writer
    WHERE id = (p_params ->> 'walletId')::uuid AND current_tenant() = p_tenant AND version = v_version;
    IF NOT FOUND THEN
        PERFORM kind_changed_since('wallet');
    END IF;
END
$$;
REVOKE ALL ON FUNCTION ledger_wallet_rename_undo(uuid, text, jsonb, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger_wallet_rename_undo(uuid, text, jsonb, jsonb, jsonb) TO ${executorRole};
