-- The catalogue's kinds as the database's rules need them (issue 41): whether a kind reaches outside this database,
-- read by the external-call guard (R__actions_external_calls.sql), so no rule outside a kind's own files names a kind.
-- executor-service fills it from the kinds' declarations at start (catalogue/KindRows): a kind is added by its
-- declaration, not by a migration. A kind once external stays external here (the fill never clears the flag), so a
-- build that lost a declaration's domain cannot weaken the guard; making an external kind a database kind takes a
-- migration. The two external kinds that exist today are recorded now, so the guard holds before the first start.
CREATE TABLE action_kinds (
    kind     text    PRIMARY KEY CHECK (char_length(kind) BETWEEN 1 AND 100),
    external boolean NOT NULL
);
REVOKE ALL ON action_kinds FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE (external) ON action_kinds TO ${executorRole};
INSERT INTO action_kinds (kind, external) VALUES ('mail.send', true), ('ticket.create', true);
