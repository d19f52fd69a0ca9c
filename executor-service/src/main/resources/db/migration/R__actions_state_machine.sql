-- The actions state machine's backstop in the database. The rule callers use is ActionTransitions in the executor; this
-- trigger refuses, even from a raw statement that skips the application: any status move outside the state machine;
-- any change to what was proposed; extending the decision window; confirming after it closed; setting who confirmed
-- or what was written outside the move that does so; replacing the token once the action left proposed; any change to
-- a finished action; deleting or truncating actions. A test asserts that both accept exactly the same moves.
-- External writes (V14) add confirmed -> executing -> executed | failed | needs_review, and needs_review -> executed |
-- failed: the call is claimed, made with no lock held, then recorded (actions_external_guard holds the rest). Edits
-- (V38) add proposed -> superseded, within the window, naming the action that replaced it (R__action_edits.sql).
-- Limit: the table's owner (the migration role) could disable the trigger; the executor's role cannot (V7).
-- Repeatable: CREATE OR REPLACE says every attribute the function has (none beyond the defaults: it runs as the caller,
-- no search_path of its own) and keeps the default grants; the triggers are dropped and created again.
CREATE OR REPLACE FUNCTION actions_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'TRUNCATE') THEN
        RAISE EXCEPTION 'actions are never deleted' USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'proposed' OR NEW.confirmed_by IS NOT NULL OR NEW.confirmed_at IS NOT NULL
                OR NEW.executed_at IS NOT NULL OR NEW.result IS NOT NULL OR NEW.superseded_by IS NOT NULL THEN
            RAISE EXCEPTION 'an action is born proposed, not %, and undecided', NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.expires_at <= NEW.proposed_at THEN
            RAISE EXCEPTION 'an action expires after it is proposed' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.id <> OLD.id OR NEW.tenant_id <> OLD.tenant_id OR NEW.kind <> OLD.kind OR NEW.params <> OLD.params
            OR NEW.params_hash <> OLD.params_hash OR NEW.requested_by <> OLD.requested_by
            OR NEW.proposed_at <> OLD.proposed_at OR NEW.summary <> OLD.summary OR NEW.tier <> OLD.tier
            OR NEW.conversation_id IS DISTINCT FROM OLD.conversation_id
            OR NEW.turn_id IS DISTINCT FROM OLD.turn_id
            OR NEW.target_owner IS DISTINCT FROM OLD.target_owner
            OR NEW.mcp_client IS DISTINCT FROM OLD.mcp_client
            OR NEW.supersedes IS DISTINCT FROM OLD.supersedes
            OR NEW.prior_requesters IS DISTINCT FROM OLD.prior_requesters THEN
        RAISE EXCEPTION 'what was proposed cannot change' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.expires_at > OLD.expires_at THEN
        RAISE EXCEPTION 'the decision window can be shortened, never extended' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status = OLD.status THEN
        IF OLD.status <> 'proposed' THEN
            IF NEW.token_hash <> OLD.token_hash OR NEW.expires_at <> OLD.expires_at
                    OR NEW.confirmed_by IS DISTINCT FROM OLD.confirmed_by
                    OR NEW.confirmed_at IS DISTINCT FROM OLD.confirmed_at
                    OR NEW.executed_at IS DISTINCT FROM OLD.executed_at
                    OR NEW.result IS DISTINCT FROM OLD.result THEN
                RAISE EXCEPTION 'a % action cannot change', OLD.status USING ERRCODE = 'check_violation';
            END IF;
        ELSIF NEW.confirmed_by IS NOT NULL OR NEW.confirmed_at IS NOT NULL OR NEW.executed_at IS NOT NULL
                OR NEW.result IS NOT NULL THEN
            RAISE EXCEPTION 'a proposed action has no decision yet' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF (OLD.status, NEW.status) NOT IN (
            ('proposed', 'confirmed'), ('confirmed', 'executed'),
            ('proposed', 'cancelled'), ('confirmed', 'cancelled'),
            ('proposed', 'expired'), ('confirmed', 'expired'),
            ('confirmed', 'failed'), ('executed', 'undone'),
            ('confirmed', 'executing'), ('executing', 'executed'), ('executing', 'failed'),
            ('executing', 'needs_review'), ('needs_review', 'executed'), ('needs_review', 'failed'),
            ('proposed', 'superseded')) THEN
        RAISE EXCEPTION 'illegal action transition % -> %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.token_hash <> OLD.token_hash THEN
        RAISE EXCEPTION 'the confirm token can only be replaced while proposed' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status = 'proposed' AND NEW.status IN ('confirmed', 'superseded') AND OLD.expires_at <= now() THEN
        RAISE EXCEPTION 'the decision window has closed' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.superseded_by IS DISTINCT FROM OLD.superseded_by
            AND NOT (OLD.status = 'proposed' AND NEW.status = 'superseded') THEN
        RAISE EXCEPTION 'only an edit records what superseded an action' USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.confirmed_by IS DISTINCT FROM OLD.confirmed_by OR NEW.confirmed_at IS DISTINCT FROM OLD.confirmed_at)
            AND NOT (OLD.status = 'proposed' AND NEW.status = 'confirmed') THEN
        RAISE EXCEPTION 'only confirming records who confirmed' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.result IS DISTINCT FROM OLD.result
            AND NOT (OLD.status IN ('confirmed', 'executing', 'needs_review')
                     AND NEW.status IN ('executed', 'failed', 'needs_review')) THEN
        RAISE EXCEPTION 'only executing or failing records a result' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.executed_at IS DISTINCT FROM OLD.executed_at
            AND NOT (OLD.status IN ('confirmed', 'executing', 'needs_review') AND NEW.status = 'executed') THEN
        RAISE EXCEPTION 'only executing records when' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS actions_guard ON actions;
CREATE TRIGGER actions_guard BEFORE INSERT OR UPDATE OR DELETE ON actions FOR EACH ROW EXECUTE FUNCTION actions_guard();
DROP TRIGGER IF EXISTS actions_no_truncate ON actions;
CREATE TRIGGER actions_no_truncate BEFORE TRUNCATE ON actions FOR EACH STATEMENT EXECUTE FUNCTION actions_guard();
