-- Committing a training plan (activate a draft, archive the previous active plan) is a user action on executor-service,
-- never an action kind the agent could propose. Who activated a plan, and when; how its status may move and who may
-- set these: R__training_plans_status.sql.
ALTER TABLE training_plans ADD COLUMN activated_by text, ADD COLUMN activated_at timestamptz;

GRANT UPDATE (status, activated_by, activated_at) ON training_plans TO ${executorRole};
