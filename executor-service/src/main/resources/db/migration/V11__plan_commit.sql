-- Committing a training plan (activate a draft, archive the previous active plan) is a user action on executor-service,
-- never an action kind the agent could propose. The database keeps a plan's status moving one way only: draft ->
-- active -> archived (a draft may also be archived); an archived plan never comes back, whatever the application does.
-- A plan becomes active only naming its own user as who activated it, and when; those never change afterwards; content
-- changes only while a plan is and stays a draft. Only the table's owner (fixtures, operators) inserts non-drafts.
ALTER TABLE training_plans ADD COLUMN activated_by text, ADD COLUMN activated_at timestamptz;

-- The status moves, and who activated a plan: R__training_plans_status.sql.

GRANT UPDATE (status, activated_by, activated_at) ON training_plans TO ${executorRole};
