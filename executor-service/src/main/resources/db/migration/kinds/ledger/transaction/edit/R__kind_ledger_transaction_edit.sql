-- ledger.transaction.edit's write: sets the fields the proposal names (the catalogue's editable fields only) and keeps
-- the others, while the row still has the version it had at staging (checked on the locked row); imported rows not
-- yet confirmed are not edited. The result records the values before and after, and each text's writer before
-- (previousWriters, what undo puts back).
CREATE OR REPLACE FUNCTION ledger_transaction_edit_write(p_action uuid, p_tenant text, p_requester text,
                                                         p_params jsonb, p_target_version bigint)
    RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_written record;
BEGIN
    UPDATE transactions t SET amount = coalesce((p_params ->> 'amount')::numeric, t.amount),
           category = coalesce(p_params ->> 'category', t.category),
           description = coalesce(p_params ->> 'description', t.description),
           occurred_on = coalesce((p_params ->> 'occurredOn')::date, t.occurred_on),
           category_action_id = CASE WHEN p_params ->> 'category' IS NULL THEN t.category_action_id
                                     ELSE action_text_writer(p_action, 'category') END,
           description_action_id = CASE WHEN p_params ->> 'description' IS NULL THEN t.description_action_id
                                        ELSE action_text_writer(p_action, 'description') END,
           version = t.version + 1
    FROM (SELECT id, amount, category, description, occurred_on, category_action_id, description_action_id
          FROM transactions
          WHERE id = (p_params ->> 'transactionId')::uuid AND current_tenant() = p_tenant AND deleted_at IS NULL
            AND NOT unconfirmed AND (p_target_version IS NULL OR version = p_target_version) FOR UPDATE) previous
    WHERE t.id = previous.id
    RETURNING previous.amount::text AS previous_amount, previous.category AS previous_category,
              previous.description AS previous_description, previous.occurred_on AS previous_occurred_on,
              previous.category_action_id AS previous_category_writer,
              previous.description_action_id AS previous_description_writer,
              t.amount::text AS amount, t.category, t.description, t.occurred_on, t.version
    INTO v_written;
    IF NOT FOUND THEN
        PERFORM kind_target_moved();
    END IF;
    RETURN jsonb_build_object('transactionId', p_params ->> 'transactionId', 'version', v_written.version,
        'before', jsonb_build_object('amount', v_written.previous_amount, 'category', v_written.previous_category,
                                     'description', v_written.previous_description,
                                     'occurredOn', v_written.previous_occurred_on),
        'after', jsonb_build_object('amount', v_written.amount, 'category', v_written.category,
                                    'description', v_written.description,
                                    'occurredOn', v_written.occurred_on),
        'previousWriters', jsonb_build_object('category', v_written.previous_category_writer,
                                              'description', v_written.previous_description_writer));
END
$$;
REVOKE ALL ON FUNCTION ledger_transaction_edit_write(uuid, text, text, jsonb, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger_transaction_edit_write(uuid, text, text, jsonb, bigint) TO ${executorRole};

-- Its undo: puts every field back as the person saw it when the action was staged, and each text's writer as it was,
-- if nothing changed the row since.
CREATE OR REPLACE FUNCTION ledger_transaction_edit_undo(p_action uuid, p_tenant text, p_params jsonb, p_result jsonb,
                                                        p_target_before jsonb)
    RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_version bigint := kind_written_version(p_result);
    v_category_writer uuid := kind_previous_writer(p_result, 'category');
    v_description_writer uuid := kind_previous_writer(p_result, 'description');
BEGIN
    UPDATE transactions SET amount = (p_target_before ->> 'amount')::numeric,
           category = p_target_before ->> 'category', description = p_target_before ->> 'description',
           occurred_on = (p_target_before ->> 'occurredOn')::date,
           category_action_id = v_category_writer, description_action_id = v_description_writer
    WHERE id = (p_params ->> 'transactionId')::uuid AND current_tenant() = p_tenant AND version = v_version
      AND deleted_at IS NULL;
    IF NOT FOUND THEN
        PERFORM kind_changed_since('transaction');
    END IF;
END
$$;
REVOKE ALL ON FUNCTION ledger_transaction_edit_undo(uuid, text, jsonb, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger_transaction_edit_undo(uuid, text, jsonb, jsonb, jsonb) TO ${executorRole};
