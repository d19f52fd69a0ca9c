-- Edit before approve (V38, docs/approvals.md). An edit moves the old action proposed -> superseded naming its
-- successor, and stores the successor naming the old one, in one transaction; these constraint triggers check, when
-- that transaction commits, that the two name each other, in one tenant, of one kind. Run as the caller, under its
-- tenant's row-level security, like the rest of the state machine's backstop.
CREATE OR REPLACE FUNCTION actions_supersession_check() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NOT EXISTS (SELECT 1 FROM actions o WHERE o.id = NEW.supersedes AND o.tenant_id = NEW.tenant_id
                       AND o.kind = NEW.kind AND o.status = 'superseded' AND o.superseded_by = NEW.id
                       AND o.requested_by = ANY (NEW.prior_requesters)
                       AND o.prior_requesters <@ NEW.prior_requesters) THEN
            RAISE EXCEPTION 'an edit supersedes one proposed action of its tenant and kind, which names it, and counts'
                ' its requesters among its own prior requesters' USING ERRCODE = 'check_violation';
        END IF;
    ELSIF NOT EXISTS (SELECT 1 FROM actions n WHERE n.id = NEW.superseded_by AND n.tenant_id = NEW.tenant_id
                      AND n.supersedes = NEW.id) THEN
        RAISE EXCEPTION 'a superseded action names the edit that replaced it, which names it back'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;
REVOKE ALL ON FUNCTION actions_supersession_check() FROM PUBLIC;

DROP TRIGGER IF EXISTS actions_supersedes ON actions;
CREATE CONSTRAINT TRIGGER actions_supersedes AFTER INSERT ON actions DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.supersedes IS NOT NULL) EXECUTE FUNCTION actions_supersession_check();
DROP TRIGGER IF EXISTS actions_superseded ON actions;
CREATE CONSTRAINT TRIGGER actions_superseded AFTER UPDATE OF status ON actions DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.status = 'superseded' AND OLD.status <> 'superseded')
    EXECUTE FUNCTION actions_supersession_check();

-- Whose text a parameter holds (provenance, docs/security/auto-apply.md): the action that wrote it, which for an edit
-- is the action it superseded when the edit left that parameter as it was (and so on back), so an edit of the amount
-- alone keeps the text's original writer, and text a person typed into their edit is theirs. A kind's write function
-- records this as the writer of each text column it writes.
CREATE OR REPLACE FUNCTION action_text_writer(p_action uuid, p_param text) RETURNS uuid
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_writer uuid := p_action;
    v_value jsonb;
    v_previous uuid;
BEGIN
    LOOP
        SELECT a.params -> p_param, a.supersedes INTO v_value, v_previous FROM actions a WHERE a.id = v_writer;
        IF v_previous IS NULL
                OR (SELECT o.params -> p_param FROM actions o WHERE o.id = v_previous) IS DISTINCT FROM v_value THEN
            RETURN v_writer;
        END IF;
        v_writer := v_previous;
    END LOOP;
END;
$$;
REVOKE ALL ON FUNCTION action_text_writer(uuid, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION action_text_writer(uuid, text) TO ${executorRole};
