-- A person reviewing imported rows may also reject them (issue 18, seed 003): who rejected a row, and a 'rejected' step
-- in the trail. What rejecting may and may not do: R__import_gate.sql; the trail: R__import_history.sql.

ALTER TABLE transactions ADD COLUMN import_rejected_by text;
GRANT UPDATE (import_rejected_by) ON transactions TO ${executorRole};

ALTER TABLE import_history DROP CONSTRAINT import_history_event_check;
ALTER TABLE import_history ADD CONSTRAINT import_history_event_check
    CHECK (event IN ('imported', 'approved', 'confirmed', 'rejected'));
