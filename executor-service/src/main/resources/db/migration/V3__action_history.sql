-- Every state an action enters (and every re-issue of its confirm token), appended by the database itself (R__action_history.sql), so the
-- trail is complete even for statements that skip the application. Who and through what channel come from transaction-local settings the executor makes
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

-- Append-only: R__append_only_trails.sql.

-- V2 made sure the reader role exists.
GRANT SELECT ON action_history TO ${readerRole};
