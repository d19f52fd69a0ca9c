-- What you saw is what gets written: an action that changes an existing row records, when it is staged, that row's
-- version and the fields the person is shown (the "before" of the diff). Execution writes only if the row still has
-- that version; otherwise the action fails with target_changed. Both columns are set at insert and never change
-- (R__actions_target_guard.sql).
ALTER TABLE actions ADD COLUMN target_version bigint, ADD COLUMN target_before jsonb;

GRANT SELECT (target_version, target_before) ON actions TO ${readerRole};

-- A row's version moves on every change, whoever makes it: R__row_versions.sql.
