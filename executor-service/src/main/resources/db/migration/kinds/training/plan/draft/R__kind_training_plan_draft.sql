-- training.plan.draft's write: a new draft plan of the requester's, its id the action's.
CREATE OR REPLACE FUNCTION training_plan_draft_write(p_action uuid, p_tenant text, p_requester text, p_params jsonb,
                                                     p_target_version bigint)
    RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO training_plans (id, tenant_id, user_id, name, goal, starts_on, schedule, status, source_action_id)
    VALUES (p_action, p_tenant, p_requester, p_params ->> 'name', p_params ->> 'goal',
            (p_params ->> 'startsOn')::date, p_params ->> 'schedule', 'draft', p_action);
    RETURN jsonb_build_object('planId', p_action::text, 'status', 'draft');
END
$$;
REVOKE ALL ON FUNCTION training_plan_draft_write(uuid, text, text, jsonb, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION training_plan_draft_write(uuid, text, text, jsonb, bigint) TO ${executorRole};
