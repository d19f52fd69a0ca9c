-- Every state an action enters, appended by the database itself, so the trail is complete even for statements that
-- skip the application. Who and through what channel come from transaction-local settings the executor makes
-- (countersign.actor, countersign.channel, countersign.reason); a statement without them is recorded as
-- actor 'database', channel 'sql'.
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
    IF TG_OP = 'INSERT' OR NEW.status <> OLD.status THEN
        INSERT INTO action_history (action_id, tenant_id, from_status, to_status, actor, channel, reason)
        VALUES (NEW.id, NEW.tenant_id, CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.status END, NEW.status,
                coalesce(nullif(current_setting('countersign.actor', true), ''), 'database'),
                coalesce(nullif(current_setting('countersign.channel', true), ''), 'sql'),
                nullif(current_setting('countersign.reason', true), ''));
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
