-- Every state an action enters (and every re-issue of its confirm token), with who and through what channel: appended
-- by the database itself (R__action_history.sql), append-only (R__append_only_trails.sql).
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

-- V2 made sure the reader role exists.
GRANT SELECT ON action_history TO ${readerRole};
