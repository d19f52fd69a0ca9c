-- ledger.transaction.delete's write: marks the transaction deleted (by this action) while it still has the version it
-- had at staging; the row stays for the audit trail and every ledger read leaves it out (the executor role has no
-- DELETE privilege at all).
CREATE OR REPLACE FUNCTION ledger_transaction_delete_write(p_action uuid, p_tenant text, p_requester text,
                                                           p_params jsonb, p_target_version bigint)
    RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_written record;
BEGIN
    UPDATE transactions SET deleted_at = now(), deleted_by_action = p_action, version = version + 1
    WHERE id = (p_params ->> 'transactionId')::uuid AND current_tenant() = p_tenant AND deleted_at IS NULL
      AND NOT unconfirmed AND (p_target_version IS NULL OR version = p_target_version)
    RETURNING amount::text AS amount, category, occurred_on, version INTO v_written;
    IF NOT FOUND THEN
        PERFORM kind_target_moved();
    END IF;
    RETURN jsonb_build_object('transactionId', p_params ->> 'transactionId', 'deleted', true,
                              'amount', v_written.amount, 'category', v_written.category,
                              'occurredOn', v_written.occurred_on, 'version', v_written.version);
END
$$;
REVOKE ALL ON FUNCTION ledger_transaction_delete_write(uuid, text, text, jsonb, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger_transaction_delete_write(uuid, text, text, jsonb, bigint) TO ${executorRole};

-- Its undo: brings the transaction back, if it is still deleted by this action and nothing changed it since.
CREATE OR REPLACE FUNCTION ledger_transaction_delete_undo(p_action uuid, p_tenant text, p_params jsonb, p_result jsonb,
                                                          p_target_before jsonb)
    RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_version bigint := kind_written_version(p_result);
BEGIN
    UPDATE transactions SET deleted_at = NULL, deleted_by_action = NULL
    WHERE id = (p_params ->> 'transactionId')::uuid AND current_tenant() = p_tenant AND version = v_version
      AND deleted_by_action = p_action;
    IF NOT FOUND THEN
        PERFORM kind_changed_since('transaction');
    END IF;
END
$$;
REVOKE ALL ON FUNCTION ledger_transaction_delete_undo(uuid, text, jsonb, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger_transaction_delete_undo(uuid, text, jsonb, jsonb, jsonb) TO ${executorRole};
