-- The auto-apply budget: what the tier rules may apply without a person is bounded in count and amount per turn, per
-- user per rolling 24 hours and per tenant per rolling 24 hours. An action the budget (or a tainted turn) keeps from
-- applying waits for a person, with the reason on the action.

-- Each automatic application spends one entry, in the staging transaction that applies it (rolled back with it).
-- Append-only for the executor: it can neither change nor remove what was spent.
CREATE TABLE auto_apply_spends (
    action_id uuid          PRIMARY KEY REFERENCES actions (id),
    tenant_id text          NOT NULL,
    user_id   text          NOT NULL,
    turn_id   uuid,
    amount    numeric(14,2) NOT NULL CHECK (amount >= 0),
    spent_at  timestamptz   NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX auto_apply_spends_by_tenant ON auto_apply_spends (tenant_id, spent_at);
CREATE INDEX auto_apply_spends_by_user ON auto_apply_spends (tenant_id, user_id, spent_at);
CREATE INDEX auto_apply_spends_by_turn ON auto_apply_spends (tenant_id, user_id, turn_id) WHERE turn_id IS NOT NULL;
ALTER TABLE auto_apply_spends ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON auto_apply_spends
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
-- Read-only for the executor: it spends only through spend_auto_apply_budget (R__auto_apply_budget.sql), which checks
-- the bounds; no action is applied automatically without its spend (the same file).
GRANT SELECT ON auto_apply_spends TO ${executorRole};

-- Why an action whose tier could apply on arrival waits for a person (the budget, or a turn that read text its user
-- did not write). Set once, while the action is proposed; null for actions that simply wait for a person.
-- context_clean: the agent's mark on the proposal (its model's context held only its user's own text); set at insert,
-- never changed. Text an action writes (a note, a wallet name, a plan) counts as its requester's own only if it was
-- proposed clean, so text a steered model wrote stays foreign after a person confirmed it.
ALTER TABLE actions ADD COLUMN held_reason text CHECK (char_length(held_reason) <= 300),
                    ADD COLUMN context_clean boolean NOT NULL DEFAULT false;
-- Held by R__actions_auto_apply_marks.sql.
GRANT SELECT (context_clean) ON actions TO ${readerRole};

-- Which action last wrote a row's free text (an edit's note or category, a rename's name, a plan revision); null: the
-- text came with the row (its source action, or the tenant's setup for wallets). The agent reads a row's text as its
-- user's own only if that action was requested by the user and proposed clean.
ALTER TABLE transactions ADD COLUMN text_action_id uuid;
ALTER TABLE wallets ADD COLUMN name_action_id uuid;
ALTER TABLE training_plans ADD COLUMN text_action_id uuid;
GRANT UPDATE (text_action_id) ON transactions TO ${executorRole};
GRANT UPDATE (text_action_id) ON training_plans TO ${executorRole};

-- The tenant's budget; NULL: the deployment's default (countersign.actions.auto-apply-budget.*). Audited with the
-- other policies.
ALTER TABLE tenant_policies
    ADD COLUMN auto_apply_turn_count integer CHECK (auto_apply_turn_count >= 0),
    ADD COLUMN auto_apply_turn_amount numeric(14, 2) CHECK (auto_apply_turn_amount >= 0),
    ADD COLUMN auto_apply_user_day_count integer CHECK (auto_apply_user_day_count >= 0),
    ADD COLUMN auto_apply_user_day_amount numeric(14, 2) CHECK (auto_apply_user_day_amount >= 0),
    ADD COLUMN auto_apply_tenant_day_count integer CHECK (auto_apply_tenant_day_count >= 0),
    ADD COLUMN auto_apply_tenant_day_amount numeric(14, 2) CHECK (auto_apply_tenant_day_amount >= 0),
    -- All six or none: a half-set budget would read as "no limit" for the missing bounds.
    ADD CONSTRAINT auto_apply_budget_whole CHECK (num_nonnulls(auto_apply_turn_count, auto_apply_turn_amount,
        auto_apply_user_day_count, auto_apply_user_day_amount, auto_apply_tenant_day_count,
        auto_apply_tenant_day_amount) IN (0, 6));
ALTER TABLE tenant_policy_history
    ADD COLUMN auto_apply_turn_count integer,
    ADD COLUMN auto_apply_turn_amount numeric(14, 2),
    ADD COLUMN auto_apply_user_day_count integer,
    ADD COLUMN auto_apply_user_day_amount numeric(14, 2),
    ADD COLUMN auto_apply_tenant_day_count integer,
    ADD COLUMN auto_apply_tenant_day_amount numeric(14, 2);

-- Audited by R__tenant_policy_history.sql.
