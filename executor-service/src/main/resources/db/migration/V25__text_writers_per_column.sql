-- Provenance per text column (issue 39, part 4). V16 kept one writer per row (text_action_id), set by every edit or
-- plan revision whether or not it wrote any text: an amount-only edit then made its action the writer of a colleague's
-- note, and the agent read that note as its user's own. Now each free-text column names the action that last wrote
-- it; a write sets the writer of the columns it writes and no other; null: the text came with the row (its source
-- action, or the tenant's setup for wallets). wallets.name_action_id (V16) already is per column.
ALTER TABLE transactions ADD COLUMN category_action_id uuid, ADD COLUMN description_action_id uuid;
UPDATE transactions SET category_action_id = text_action_id, description_action_id = text_action_id
WHERE text_action_id IS NOT NULL;
ALTER TABLE transactions DROP COLUMN text_action_id;
GRANT UPDATE (category_action_id, description_action_id) ON transactions TO ${executorRole};

ALTER TABLE training_plans ADD COLUMN name_action_id uuid, ADD COLUMN goal_action_id uuid,
                           ADD COLUMN schedule_action_id uuid;
UPDATE training_plans SET name_action_id = text_action_id, goal_action_id = text_action_id,
                          schedule_action_id = text_action_id
WHERE text_action_id IS NOT NULL;
ALTER TABLE training_plans DROP COLUMN text_action_id;
GRANT UPDATE (name_action_id, goal_action_id, schedule_action_id) ON training_plans TO ${executorRole};
