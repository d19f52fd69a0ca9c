-- Tiers that act: LOW (and MEDIUM for a user who earned trust) are applied on arrival; executed actions can be undone
-- within a window; each user's run of confirmed MEDIUM actions is kept per tenant.

-- auto_applied: confirmed by the executor's tier rules, not by a person (set only when confirming).
-- undone_by / undone_at: who undid an executed action and when (set only by executed -> undone).
ALTER TABLE actions ADD COLUMN auto_applied boolean NOT NULL DEFAULT false,
                    ADD COLUMN undone_by text,
                    ADD COLUMN undone_at timestamptz;

CREATE FUNCTION actions_decision_marks_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.auto_applied OR NEW.undone_by IS NOT NULL OR NEW.undone_at IS NOT NULL THEN
            RAISE EXCEPTION 'a new action is neither applied nor undone' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.auto_applied IS DISTINCT FROM OLD.auto_applied AND NOT (OLD.status = 'proposed' AND NEW.status = 'confirmed')
            THEN
        RAISE EXCEPTION 'only confirming records an automatic application' USING ERRCODE = 'check_violation';
    END IF;
    -- Only the tier rules apply on arrival, and never a HIGH action (the same rule as AutoApply, as a backstop).
    IF NEW.auto_applied AND NOT OLD.auto_applied
            AND (NEW.tier = 'high' OR NEW.confirmed_by IS DISTINCT FROM 'countersign/auto-apply') THEN
        RAISE EXCEPTION 'a HIGH action is never applied automatically, and only the tier rules apply one'
            USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.undone_by IS DISTINCT FROM OLD.undone_by OR NEW.undone_at IS DISTINCT FROM OLD.undone_at)
            AND NOT (OLD.status = 'executed' AND NEW.status = 'undone') THEN
        RAISE EXCEPTION 'only undoing records who undid' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status = 'undone' AND (NEW.undone_by IS NULL OR NEW.undone_at IS NULL) THEN
        RAISE EXCEPTION 'an undone action names who undid it and when' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER actions_decision_marks_guard BEFORE INSERT OR UPDATE ON actions
    FOR EACH ROW EXECUTE FUNCTION actions_decision_marks_guard();

GRANT SELECT (auto_applied, undone_by, undone_at) ON actions TO ${readerRole};

-- Earned trust: how many MEDIUM actions of this user's agent a person confirmed in a row since the last reset (an undo
-- or a cancelled MEDIUM proposal). The executor reads it when staging a MEDIUM action.
CREATE TABLE user_trust (
    tenant_id                 text        NOT NULL,
    user_id                   text        NOT NULL,
    medium_confirmed_in_a_row integer     NOT NULL DEFAULT 0 CHECK (medium_confirmed_in_a_row >= 0),
    reset_at                  timestamptz,
    reset_because             text,
    updated_at                timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, user_id)
);
ALTER TABLE user_trust ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON user_trust
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
GRANT SELECT, INSERT, UPDATE ON user_trust TO ${executorRole};

-- The tenant's high-impact threshold (NULL: the default, 500.00) and its switch for agent-initiated external sends
-- (e-mail, tickets; NULL: enabled). Both audited with the other policies.
ALTER TABLE tenant_policies ADD COLUMN high_impact_threshold numeric(14, 2) CHECK (high_impact_threshold > 0),
                            ADD COLUMN external_sends text CHECK (external_sends IN ('enabled', 'disabled'));
ALTER TABLE tenant_policy_history ADD COLUMN high_impact_threshold numeric(14, 2),
                                  ADD COLUMN external_sends text;
-- A tenant whose administrator never set agent writes follows the deployment's default (ACTIONS_AGENT_WRITES_DEFAULT),
-- also when another of its policies has a row.
ALTER TABLE tenant_policies ALTER COLUMN agent_writes DROP NOT NULL, ALTER COLUMN agent_writes DROP DEFAULT;
ALTER TABLE tenant_policy_history ALTER COLUMN agent_writes DROP NOT NULL;

CREATE OR REPLACE FUNCTION tenant_policy_history_append() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO tenant_policy_history (tenant_id, agent_writes, changed_by, high_approvals, high_needs_other_approver,
                                       high_impact_threshold, external_sends)
    VALUES (NEW.tenant_id, NEW.agent_writes, NEW.updated_by, NEW.high_approvals, NEW.high_needs_other_approver,
            NEW.high_impact_threshold, NEW.external_sends);
    RETURN NEW;
END;
$$;
REVOKE ALL ON FUNCTION tenant_policy_history_append() FROM PUBLIC;
