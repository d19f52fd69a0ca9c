-- training.plan.revise's write: changes the named fields of one of the requester's drafts, while it still has the
-- version it had at staging. An active or archived plan, or another user's, is not a draft of theirs: the target moved.
CREATE OR REPLACE FUNCTION training_plan_revise_write(p_action uuid, p_tenant text, p_requester text, p_params jsonb,
                                                      p_target_version bigint)
    RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_version bigint;
BEGIN
    UPDATE training_plans SET name = coalesce(p_params ->> 'name', name), goal = coalesce(p_params ->> 'goal', goal),
           starts_on = coalesce((p_params ->> 'startsOn')::date, starts_on),
           schedule = coalesce(p_params ->> 'schedule', schedule),
           name_action_id = CASE WHEN p_params ->> 'name' IS NULL THEN name_action_id ELSE p_action END,
           goal_action_id = CASE WHEN p_params ->> 'goal' IS NULL THEN goal_action_id ELSE p_action END,
           schedule_action_id = CASE WHEN p_params ->> 'schedule' IS NULL THEN schedule_action_id ELSE p_action END,
           version = version + 1, updated_at = now()
    WHERE id = (p_params ->> 'planId')::uuid AND current_tenant() = p_tenant AND user_id = p_requester
      AND status = 'draft' AND (p_target_version IS NULL OR version = p_target_version)
    RETURNING version INTO v_version;
    IF NOT FOUND THEN
        PERFORM kind_target_moved();
    END IF;
    RETURN jsonb_build_object('planId', p_params ->> 'planId', 'version', v_version);
END
$$;
REVOKE ALL ON FUNCTION training_plan_revise_write(uuid, text, text, jsonb, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION training_plan_revise_write(uuid, text, text, jsonb, bigint) TO ${executorRole};
