-- The two-person rule's backstop in the database (issue 39, part 5; PolicyChanges holds the rule callers use): a staged
-- policy change only moves from pending, once; what was proposed never changes; and it is applied only by someone
-- other than its proposer, unless an operator's break-glass exemption names it. Rows are never deleted.
--
-- Limit: the rule guards the record of the change, not tenant_policies itself: the executor's role, which owns every
-- write, could still set a policy directly (it is trusted; docs/security/authorization.md says what follows).
CREATE OR REPLACE FUNCTION policy_changes_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'policy changes are never deleted' USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'pending' OR NEW.decided_by IS NOT NULL OR NEW.break_glass_by IS NOT NULL THEN
            RAISE EXCEPTION 'a policy change is born pending and undecided' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF (NEW.id, NEW.tenant_id, NEW.setting, NEW.value, NEW.base, NEW.proposed_by, NEW.proposed_at, NEW.expires_at)
            IS DISTINCT FROM
            (OLD.id, OLD.tenant_id, OLD.setting, OLD.value, OLD.base, OLD.proposed_by, OLD.proposed_at, OLD.expires_at)
    THEN
        RAISE EXCEPTION 'what was proposed cannot change' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status <> 'pending' AND (NEW.status, NEW.decided_by, NEW.decided_at, NEW.break_glass_by)
            IS DISTINCT FROM (OLD.status, OLD.decided_by, OLD.decided_at, OLD.break_glass_by) THEN
        RAISE EXCEPTION 'a % policy change cannot change', OLD.status USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status = 'applied' AND OLD.status = 'pending'
            AND (NEW.decided_by IS NULL OR (NEW.decided_by = NEW.proposed_by AND NEW.break_glass_by IS NULL)) THEN
        RAISE EXCEPTION 'a loosening policy change is applied by a second administrator, not its proposer'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS policy_changes_guard ON policy_changes;
CREATE TRIGGER policy_changes_guard BEFORE INSERT OR UPDATE OR DELETE ON policy_changes
    FOR EACH ROW EXECUTE FUNCTION policy_changes_guard();

-- Break-glass for a tenant with one administrator (globex in the demo realm): an operator, with the owner role's
-- credentials, exempts one pending change from the second person; its proposer may then confirm it (over HTTP or the
-- decision page), and the change records the operator and the reason. An operator command, not an API: EXECUTE is the
-- owner's only. Answers whether the change was pending (and is now exempt).
CREATE OR REPLACE FUNCTION break_glass_policy_change(p_change uuid, p_operator text, p_reason text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    exempted integer;
BEGIN
    IF p_operator IS NULL OR char_length(p_operator) NOT BETWEEN 1 AND 128
            OR p_reason IS NULL OR char_length(p_reason) NOT BETWEEN 1 AND 500 THEN
        RAISE EXCEPTION 'name the operator (1 to 128 characters) and the reason (1 to 500)'
            USING ERRCODE = 'check_violation';
    END IF;
    UPDATE policy_changes SET break_glass_by = 'operator:' || p_operator || ' (' || session_user || ')',
                              break_glass_reason = p_reason
    WHERE id = p_change AND status = 'pending' AND break_glass_by IS NULL AND expires_at > statement_timestamp();
    GET DIAGNOSTICS exempted = ROW_COUNT;
    RETURN exempted = 1;
END
$$;
REVOKE ALL ON FUNCTION break_glass_policy_change(uuid, text, text) FROM PUBLIC;
