-- Every change of a tenant's policies (agent writes, approvals for HIGH actions, the high-impact threshold, external
-- sends, the auto-apply budget, the kinds MCP proposals may apply, the webhook origins, the kinds asked on second
-- devices) is appended to tenant_policy_history, with who made it. A column added to
-- tenant_policies is added to the history table (a versioned migration) and to this function in the same change.
-- Runs as the owner (SECURITY DEFINER, search_path pinned with pg_temp last): the executor's role cannot write the
-- audit itself. CREATE OR REPLACE resets what it does not say, so it says both; PUBLIC may not call it.
CREATE OR REPLACE FUNCTION tenant_policy_history_append() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO tenant_policy_history (tenant_id, agent_writes, changed_by, high_approvals, high_needs_other_approver,
                                       high_impact_threshold, external_sends, auto_apply_turn_count,
                                       auto_apply_turn_amount, auto_apply_user_day_count, auto_apply_user_day_amount,
                                       auto_apply_tenant_day_count, auto_apply_tenant_day_amount,
                                       mcp_auto_apply_kinds, webhook_origins, second_device_kinds)
    VALUES (NEW.tenant_id, NEW.agent_writes, NEW.updated_by, NEW.high_approvals, NEW.high_needs_other_approver,
            NEW.high_impact_threshold, NEW.external_sends, NEW.auto_apply_turn_count, NEW.auto_apply_turn_amount,
            NEW.auto_apply_user_day_count, NEW.auto_apply_user_day_amount, NEW.auto_apply_tenant_day_count,
            NEW.auto_apply_tenant_day_amount, NEW.mcp_auto_apply_kinds, NEW.webhook_origins, NEW.second_device_kinds);
    RETURN NEW;
END;
$$;
REVOKE ALL ON FUNCTION tenant_policy_history_append() FROM PUBLIC;

DROP TRIGGER IF EXISTS tenant_policies_history ON tenant_policies;
CREATE TRIGGER tenant_policies_history AFTER INSERT OR UPDATE ON tenant_policies
    FOR EACH ROW EXECUTE FUNCTION tenant_policy_history_append();
