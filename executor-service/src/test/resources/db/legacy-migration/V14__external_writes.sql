-- External writes (e-mail, tickets) cannot join the database transaction, so they are claimed, called and recorded:
-- the confirming transaction moves the action confirmed -> executing and commits; the call is made with no lock held;
-- a second transaction records executing -> executed | failed. If nobody records (the instance died between the call
-- and the record, or the vendor's answer never came), the action goes to needs_review: a person checks the vendor and
-- resolves it to executed or failed. The guard below is V1's, with these moves added.
-- NOT VALID, then VALIDATE: the check of existing rows does not hold ACCESS EXCLUSIVE on actions.
ALTER TABLE actions DROP CONSTRAINT actions_status_check;
ALTER TABLE actions ADD CONSTRAINT actions_status_check CHECK (status IN
    ('proposed', 'confirmed', 'executing', 'executed', 'needs_review', 'cancelled', 'expired', 'failed', 'undone'))
    NOT VALID;
ALTER TABLE actions VALIDATE CONSTRAINT actions_status_check;

-- call_started_at: when the current call of an executing action started (the claim, or the recovery's lease for a
-- repeat). It moves only while the action is executing; the recovery takes a lease by compare-and-swap on it, so one
-- instance at a time repeats a call.
ALTER TABLE actions ADD COLUMN call_started_at timestamptz;
CREATE INDEX actions_executing_by_call ON actions (call_started_at) WHERE status = 'executing';

CREATE FUNCTION actions_external_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    -- The external kinds (the catalogue's "external" domain) are never written inside the confirming transaction.
    IF OLD.status = 'confirmed' AND NEW.status = 'executed' AND NEW.kind IN ('mail.send', 'ticket.create') THEN
        RAISE EXCEPTION 'an external action is claimed (executing) before it is called' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.call_started_at IS DISTINCT FROM OLD.call_started_at AND NEW.status <> 'executing' THEN
        RAISE EXCEPTION 'only an executing action starts a call' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status = 'executing' AND NEW.call_started_at IS NULL THEN
        RAISE EXCEPTION 'an executing action records when its call started' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER actions_external_guard BEFORE UPDATE ON actions FOR EACH ROW EXECUTE FUNCTION actions_external_guard();

CREATE OR REPLACE FUNCTION actions_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'TRUNCATE') THEN
        RAISE EXCEPTION 'actions are never deleted' USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'proposed' OR NEW.confirmed_by IS NOT NULL OR NEW.confirmed_at IS NOT NULL
                OR NEW.executed_at IS NOT NULL OR NEW.result IS NOT NULL THEN
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
            OR NEW.turn_id IS DISTINCT FROM OLD.turn_id THEN
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
            ('executing', 'needs_review'), ('needs_review', 'executed'), ('needs_review', 'failed')) THEN
        RAISE EXCEPTION 'illegal action transition % -> %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.token_hash <> OLD.token_hash THEN
        RAISE EXCEPTION 'the confirm token can only be replaced while proposed' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status = 'proposed' AND NEW.status = 'confirmed' AND OLD.expires_at <= now() THEN
        RAISE EXCEPTION 'the decision window has closed' USING ERRCODE = 'check_violation';
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

-- The recovery's search, across tenants like the expiry sweep's: executing actions whose call started longer ago than
-- any call can take. Only ids and tenants; each is then moved under its tenant's own policy with a compare-and-swap.
CREATE FUNCTION actions_stale_executing(p_older_than interval, p_limit integer)
    RETURNS TABLE (tenant_id text, id uuid)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT a.tenant_id, a.id FROM actions a
    WHERE a.status = 'executing' AND a.call_started_at < now() - p_older_than
    ORDER BY a.call_started_at LIMIT p_limit;
$$;
REVOKE ALL ON FUNCTION actions_stale_executing(interval, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION actions_stale_executing(interval, integer) TO ${executorRole};

-- Support cases: the requestor an agent may e-mail. The address is read when the proposal is staged and shown to the
-- person who confirms (the target's "before"); the e-mail goes to that address only if the case has not changed since.
CREATE TABLE support_cases (
    id              uuid        PRIMARY KEY,
    tenant_id       text        NOT NULL,
    title           text        NOT NULL,
    requestor_email text        NOT NULL CHECK (requestor_email ~ '^[^@\s<>]+@[^@\s<>]+$'),
    version         bigint      NOT NULL DEFAULT 1,
    created_at      timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE support_cases ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON support_cases
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
CREATE TRIGGER support_cases_bump_version BEFORE UPDATE ON support_cases FOR EACH ROW EXECUTE FUNCTION bump_version();
GRANT SELECT ON support_cases TO ${executorRole};
