-- Provenance per text column (issue 39, part 4). V16 kept one writer per row (text_action_id), set by every edit or
-- plan revision whether or not it wrote any text: an amount-only edit then made its action the writer of a colleague's
-- note, and the agent read that note as its user's own. Now each free-text column names the action that last wrote
-- it; a write sets the writer of the columns it writes and no other; null: the text came with the row (its source
-- action, or the tenant's setup for wallets). wallets.name_action_id (V16) already is per column.
--
-- The backfill cannot know who wrote a column the row's last writer did not write (the one column kept no history):
-- such a column gets the nil UUID, which names no action, so its text is nobody's own until it is written again (the
-- safe direction: text laundered before this version does not stay laundered). A column the last writer's parameters
-- name keeps that writer.
ALTER TABLE transactions ADD COLUMN category_action_id uuid, ADD COLUMN description_action_id uuid;
UPDATE transactions t
SET category_action_id = CASE WHEN a.params ->> 'category' IS NOT NULL THEN t.text_action_id
                              ELSE '00000000-0000-0000-0000-000000000000'::uuid END,
    description_action_id = CASE WHEN a.params ->> 'description' IS NOT NULL THEN t.text_action_id
                                 ELSE '00000000-0000-0000-0000-000000000000'::uuid END
FROM actions a
WHERE t.text_action_id IS NOT NULL AND a.id = t.text_action_id AND a.tenant_id = t.tenant_id;
UPDATE transactions SET category_action_id = '00000000-0000-0000-0000-000000000000'::uuid,
                        description_action_id = '00000000-0000-0000-0000-000000000000'::uuid
WHERE text_action_id IS NOT NULL AND category_action_id IS NULL;
ALTER TABLE transactions DROP COLUMN text_action_id;
GRANT UPDATE (category_action_id, description_action_id) ON transactions TO ${executorRole};

ALTER TABLE training_plans ADD COLUMN name_action_id uuid, ADD COLUMN goal_action_id uuid,
                           ADD COLUMN schedule_action_id uuid;
UPDATE training_plans p
SET name_action_id = CASE WHEN a.params ->> 'name' IS NOT NULL THEN p.text_action_id
                          ELSE '00000000-0000-0000-0000-000000000000'::uuid END,
    goal_action_id = CASE WHEN a.params ->> 'goal' IS NOT NULL THEN p.text_action_id
                          ELSE '00000000-0000-0000-0000-000000000000'::uuid END,
    schedule_action_id = CASE WHEN a.params ->> 'schedule' IS NOT NULL THEN p.text_action_id
                              ELSE '00000000-0000-0000-0000-000000000000'::uuid END
FROM actions a
WHERE p.text_action_id IS NOT NULL AND a.id = p.text_action_id AND a.tenant_id = p.tenant_id;
UPDATE training_plans SET name_action_id = '00000000-0000-0000-0000-000000000000'::uuid,
                          goal_action_id = '00000000-0000-0000-0000-000000000000'::uuid,
                          schedule_action_id = '00000000-0000-0000-0000-000000000000'::uuid
WHERE text_action_id IS NOT NULL AND name_action_id IS NULL;
ALTER TABLE training_plans DROP COLUMN text_action_id;
GRANT UPDATE (name_action_id, goal_action_id, schedule_action_id) ON training_plans TO ${executorRole};
