-- A person reviewing imported rows may also reject them (issue 18, seed 003): a rejected row is removed (deleted_at),
-- stays unconfirmed, names who rejected it, is never confirmed afterwards, and leaves a 'rejected' step in the trail.
-- ImportService decides who may (the importer, or an approver of the tenant); the database keeps the moves honest
-- (R__import_gate.sql, and the trail: R__import_history.sql):
--   * an unconfirmed row changes only by being confirmed or by being rejected, nothing else about it moves;
--   * who rejected a row is set by rejecting it and never changes; a row is never imported already rejected;
--   * a rejected row is never confirmed.
-- Limit, as in V17: the database trusts the name the executor writes in import_rejected_by.

ALTER TABLE transactions ADD COLUMN import_rejected_by text;
GRANT UPDATE (import_rejected_by) ON transactions TO ${executorRole};

ALTER TABLE import_history DROP CONSTRAINT import_history_event_check;
ALTER TABLE import_history ADD CONSTRAINT import_history_event_check
    CHECK (event IN ('imported', 'approved', 'confirmed', 'rejected'));
