-- Every state an action enters (and every re-issue of its confirm token), appended by the database itself, so the trail is complete even for statements that
-- skip the application. Who and through what channel come from transaction-local settings the executor makes
-- (countersign.actor, countersign.channel, countersign.reason); a statement without them is recorded as
-- actor 'database', channel 'sql'. A confirmation by another user of the tenant than the one who asked is allowed
-- and marked here as an actor mismatch (unless the transaction gave its own reason), so it can be counted from the
-- history; no metric counts it yet.
CREATE TABLE action_history (
    id          bigserial   PRIMARY KEY,
    action_id   uuid        NOT NULL REFERENCES actions (id),
    tenant_id   text        NOT NULL,
    from_status text,
    to_status   text        NOT NULL,
    actor       text        NOT NULL,
    channel     text        NOT NULL,
    reason      text,
    at          timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX action_history_by_action ON action_history (action_id, id);

CREATE FUNCTION action_history_append() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.status <> OLD.status OR NEW.token_hash <> OLD.token_hash THEN
        INSERT INTO action_history (action_id, tenant_id, from_status, to_status, actor, channel, reason)
        VALUES (NEW.id, NEW.tenant_id, CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.status END, NEW.status,
                coalesce(nullif(current_setting('countersign.actor', true), ''), 'database'),
                coalesce(nullif(current_setting('countersign.channel', true), ''), 'sql'),
                coalesce(nullif(current_setting('countersign.reason', true), ''),
                         CASE WHEN TG_OP = 'UPDATE' AND NEW.token_hash <> OLD.token_hash
                                  THEN 'confirm token reissued'
                              WHEN TG_OP = 'UPDATE' AND NEW.status = 'confirmed'
                                   AND NEW.confirmed_by <> NEW.requested_by
                                  THEN 'actor mismatch: confirmed by another user than the requester' END));
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER actions_history AFTER INSERT OR UPDATE ON actions FOR EACH ROW EXECUTE FUNCTION action_history_append();

-- The trail is append-only.
CREATE FUNCTION action_history_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the action history is append-only' USING ERRCODE = 'check_violation';
END;
$$;
CREATE TRIGGER action_history_frozen BEFORE UPDATE OR DELETE ON action_history
    FOR EACH ROW EXECUTE FUNCTION action_history_frozen();
CREATE TRIGGER action_history_no_truncate BEFORE TRUNCATE ON action_history
    FOR EACH STATEMENT EXECUTE FUNCTION action_history_frozen();

-- V2 made sure the reader role exists.
GRANT SELECT ON action_history TO ${readerRole};
