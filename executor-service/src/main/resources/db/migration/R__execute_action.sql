-- The write of a confirmed action of a database kind, in one call (issue 41, ADR 7 step 5): the kind's own write
-- function (in its folder, db/migration/kinds/<kind path>/), then confirmed -> executed with the result, the
-- requester's trust count and the outcome event in the outbox and the conversation's ledger; every trigger on these
-- tables still checks each statement. A kind refuses with kind_refuse() (the action then fails with that code, its
-- write rolled back alone); a guarded write that matched no row calls kind_target_moved() (the gate reads the target
-- again to say why). Security invoker: each runs with the executor's rights and row-level security, so a kind's
-- function writes the transaction's tenant's rows only. search_path pinned with pg_temp last (see V7).

-- A kind's refusal: the code (ErrorCode's wire name) in DETAIL, the person-readable reason as the message.
CREATE OR REPLACE FUNCTION kind_refuse(p_code text, p_reason text) RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'CS001', MESSAGE = p_reason, DETAIL = p_code;
END
$$;
REVOKE ALL ON FUNCTION kind_refuse(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION kind_refuse(text, text) TO ${executorRole};

-- A write guarded by the staged version (and the tenant, and the requester where the row must be theirs) matched no
-- row: the target changed since staging, or is gone.
CREATE OR REPLACE FUNCTION kind_target_moved() RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'CS002',
        MESSAGE = 'the target changed since the action was staged, or is gone';
END
$$;
REVOKE ALL ON FUNCTION kind_target_moved() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION kind_target_moved() TO ${executorRole};

-- The statement that calls a kind's function p_function with its five arguments: schema-qualified, and each argument
-- cast to the type the function declares, so the call resolves to that function (an exact match on every argument
-- wins over an overload with defaults or variadic arguments, and a function of that name in another schema is not
-- looked at).
CREATE OR REPLACE FUNCTION kind_call(p_function regprocedure) RETURNS text
    LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT format('SELECT %I.%I(%s)', n.nspname, p.proname,
                  (SELECT string_agg(format('$%s::%s', a.i, format_type(a.t, NULL)), ', ' ORDER BY a.i)
                   FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(t, i)))
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = p_function;
$$;
REVOKE ALL ON FUNCTION kind_call(regprocedure) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION kind_call(regprocedure) TO ${executorRole};

-- An outcome event in the outbox, and in its conversation's ledger when it has a user and a conversation (agent-service
-- reads the ledger for the next turn). The one statement every outcome is appended with (OutboxWriter, execute_action).
-- The payload is cast to jsonb only for the ledger: an outcome jsonb refuses (a NUL) is sent without user and
-- conversation, so it reaches the topic and never the ledger.
CREATE OR REPLACE FUNCTION append_outcome(p_event uuid, p_tenant text, p_topic text, p_key text, p_payload text,
                                          p_user text, p_conversation text, p_type text, p_at timestamptz)
    RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF p_user IS NOT NULL AND p_conversation IS NOT NULL THEN
        INSERT INTO conversation_events (event_id, tenant_id, user_id, conversation_id, type, occurred_at, payload)
        VALUES (p_event, p_tenant, p_user, p_conversation, p_type, p_at, p_payload::jsonb)
        ON CONFLICT (event_id) DO NOTHING;
    END IF;
    INSERT INTO outbox (event_id, tenant_id, topic, message_key, payload)
    VALUES (p_event, p_tenant, p_topic, p_key, p_payload);
END
$$;
REVOKE ALL ON FUNCTION append_outcome(uuid, text, text, text, text, text, text, text, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION append_outcome(uuid, text, text, text, text, text, text, text, timestamptz)
    TO ${executorRole};

-- The confirmed action p_action written by its kind's function p_write (arguments: the action's id, tenant,
-- requester, parameters and the target's version as staged; answer: the result), then executed. p_event is the outcome
-- event as the executor built it for the row it expects to store, its result left out: the result is set into it
-- here, so the event is built in one place (OutcomeEvents) and carries exactly what was stored. p_expected is that row
-- (the executor's ActionRow columns as JSON, ActionRepository.columnsOf; its result is not compared, the stored one is
-- the function's answer): the row stored must be it, or the call fails (CS004) and nothing of the transaction may
-- commit, since the event would describe another row (a trigger changing a column, a clock other than the
-- confirmation's). A key p_expected lacks is not compared. p_to_ledger false keeps the event out of the conversation's
-- ledger (append_outcome). Answers the stored row, or the kind's refusal with nothing of the write kept (the block
-- below is a savepoint) and the action still confirmed: the caller records the failure (moved: the guarded write
-- matched no row, and the caller says why). With p_refusal_aborts the refusal is raised instead (CS001, or CS002
-- when moved), failing the transaction: for a call sent with the transaction's COMMIT, which then rolls everything
-- back, and the executor confirms again the way that records the failure (ActionExecution.confirmThenRun).
-- MEDIUM actions a person confirmed count towards the requester's earned trust (EarnedTrust resets the run); the
-- tier rules' own moves (auto_applied) do not.
DROP FUNCTION IF EXISTS execute_action(uuid, regproc, jsonb, text, text, boolean);
DROP FUNCTION IF EXISTS execute_action(uuid, regprocedure, jsonb, text, text, boolean);
CREATE OR REPLACE FUNCTION execute_action(p_action uuid, p_write regprocedure, p_event jsonb, p_event_type text,
                                          p_topic text, p_to_ledger boolean, p_expected jsonb,
                                          p_refusal_aborts boolean)
    RETURNS TABLE (refusal text, reason text, moved boolean, stored actions)
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_action actions;
    v_result jsonb;
    v_payload jsonb;
BEGIN
    IF jsonb_typeof(p_expected) IS DISTINCT FROM 'object' OR p_refusal_aborts IS NULL THEN
        RAISE EXCEPTION 'execute_action needs the expected row (a JSON object) and whether a refusal aborts'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT * INTO v_action FROM actions a WHERE a.id = p_action AND a.status = 'confirmed' FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'action % is not confirmed in this tenant', p_action
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    moved := false;
    BEGIN
        EXECUTE kind_call(p_write) INTO v_result
            USING v_action.id, v_action.tenant_id, v_action.requested_by, v_action.params, v_action.target_version;
    EXCEPTION
        WHEN SQLSTATE 'CS001' THEN
            IF p_refusal_aborts THEN
                RAISE;
            END IF;
            GET STACKED DIAGNOSTICS refusal = PG_EXCEPTION_DETAIL, reason = MESSAGE_TEXT;
            RETURN NEXT;
            RETURN;
        WHEN SQLSTATE 'CS002' THEN
            IF p_refusal_aborts THEN
                RAISE;
            END IF;
            GET STACKED DIAGNOSTICS reason = MESSAGE_TEXT;
            refusal := 'target_changed';
            moved := true;
            RETURN NEXT;
            RETURN;
    END;
    IF v_result IS NULL THEN
        -- A write answers what it wrote; no answer is a fault of the kind (CS003, never retried), not a success.
        RAISE EXCEPTION 'the write function % answered nothing; action % is not executed', p_write, p_action
            USING ERRCODE = 'CS003';
    END IF;
    UPDATE actions a SET status = 'executed', result = v_result, executed_at = now(), version = a.version + 1
    WHERE a.id = p_action AND a.status = 'confirmed'
    RETURNING a.* INTO stored;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'action % was no longer confirmed when its write ended', p_action
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF jsonb_populate_record(stored, p_expected - 'result') IS DISTINCT FROM stored THEN
        RAISE EXCEPTION 'action % was stored as executed otherwise than its outcome event says', p_action
            USING ERRCODE = 'CS004', DETAIL = 'nothing of this transaction may commit';
    END IF;
    -- An edit's requester is the person who edited it, not their agent: confirming it earns their agent no trust.
    IF v_action.tier = 'medium' AND NOT v_action.auto_applied AND v_action.supersedes IS NULL THEN
        INSERT INTO user_trust (tenant_id, user_id, medium_confirmed_in_a_row)
        VALUES (v_action.tenant_id, v_action.requested_by, 1)
        ON CONFLICT (tenant_id, user_id) DO UPDATE
        SET medium_confirmed_in_a_row = user_trust.medium_confirmed_in_a_row + 1, updated_at = now();
    END IF;
    v_payload := jsonb_set(p_event, '{result}', v_result);
    PERFORM append_outcome((p_event ->> 'eventId')::uuid, stored.tenant_id, p_topic, stored.id::text,
                           v_payload::text, CASE WHEN p_to_ledger THEN stored.requested_by END,
                           CASE WHEN p_to_ledger THEN stored.conversation_id END, p_event_type, stored.executed_at);
    RETURN NEXT;
END
$$;
REVOKE ALL ON FUNCTION execute_action(uuid, regprocedure, jsonb, text, text, boolean, jsonb, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION execute_action(uuid, regprocedure, jsonb, text, text, boolean, jsonb, boolean)
    TO ${executorRole};

-- Undo (UndoService): the executed action p_action put back by its kind's undo function p_undo (arguments: the
-- action's id, tenant, parameters, result and the target's fields as staged; it answers nothing). A kind's refusal
-- (kind_refuse(): not_undoable, target_changed; kind_target_moved()) is answered, as execute_action answers a write's,
-- with nothing of the undo kept; the executor then refuses the undo and rolls its transaction back. Marking the action
-- undone stays with the executor (ActionLifecycle.undone).
DROP FUNCTION IF EXISTS undo_action(uuid, regproc);
DROP FUNCTION IF EXISTS undo_action(uuid, regprocedure);
CREATE OR REPLACE FUNCTION undo_action(p_action uuid, p_undo regprocedure)
    RETURNS TABLE (refusal text, reason text, moved boolean)
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_action actions;
BEGIN
    SELECT * INTO v_action FROM actions a WHERE a.id = p_action AND a.status = 'executed' FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'action % is not executed in this tenant', p_action
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    moved := false;
    BEGIN
        EXECUTE kind_call(p_undo)
            USING v_action.id, v_action.tenant_id, v_action.params, v_action.result, v_action.target_before;
    EXCEPTION
        WHEN SQLSTATE 'CS001' THEN
            GET STACKED DIAGNOSTICS refusal = PG_EXCEPTION_DETAIL, reason = MESSAGE_TEXT;
        WHEN SQLSTATE 'CS002' THEN
            GET STACKED DIAGNOSTICS reason = MESSAGE_TEXT;
            refusal := 'target_changed';
            moved := true;
    END;
    RETURN NEXT;
END
$$;
REVOKE ALL ON FUNCTION undo_action(uuid, regprocedure) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION undo_action(uuid, regprocedure) TO ${executorRole};

-- An undo's helpers. The target's version right after the action wrote it (its result's version), which the undo
-- writes only while the row still has; not_undoable for an action that ran before versions were recorded.
CREATE OR REPLACE FUNCTION kind_written_version(p_result jsonb) RETURNS bigint
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF p_result IS NULL OR jsonb_typeof(p_result -> 'version') IS DISTINCT FROM 'number' THEN
        PERFORM kind_refuse('not_undoable', 'this action ran before undo was possible (no version recorded)');
    END IF;
    RETURN (p_result ->> 'version')::bigint;
END
$$;
REVOKE ALL ON FUNCTION kind_written_version(jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION kind_written_version(jsonb) TO ${executorRole};

-- The writer of text column p_column before the action wrote (its result's previousWriters; null: the text came with
-- the row). not_undoable for an action that ran before writers were recorded: putting its text back under its own
-- name would launder it.
CREATE OR REPLACE FUNCTION kind_previous_writer(p_result jsonb, p_column text) RETURNS uuid
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF p_result IS NULL OR NOT coalesce(p_result -> 'previousWriters' ? p_column, false) THEN
        PERFORM kind_refuse('not_undoable', 'this action ran before the writer of its text was recorded,'
                                            || ' so undo could not put it back');
    END IF;
    RETURN (p_result -> 'previousWriters' ->> p_column)::uuid;
END
$$;
REVOKE ALL ON FUNCTION kind_previous_writer(jsonb, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION kind_previous_writer(jsonb, text) TO ${executorRole};

-- The refusal when an undo's guarded statement matched no row: the row moved on since the action wrote it.
CREATE OR REPLACE FUNCTION kind_changed_since(p_noun text) RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM kind_refuse('target_changed', format(
        'the %s changed since this action ran, or is gone; undo refused so that later change is kept', p_noun));
END
$$;
REVOKE ALL ON FUNCTION kind_changed_since(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION kind_changed_since(text) TO ${executorRole};
