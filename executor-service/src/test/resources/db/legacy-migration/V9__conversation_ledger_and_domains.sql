-- The conversation ledger, training plans, and the grants for editing and deleting transactions.

-- Conversation ledger: agent-service publishes each finished turn to countersign.conversation.events and this
-- service appends it here; agent-service reads the history back through its reader role, so every replica sees every
-- earlier turn. Append-only: the executor role may INSERT and SELECT, nothing else; position orders a conversation.
CREATE TABLE conversation_events (
    position        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id        uuid        NOT NULL UNIQUE,
    tenant_id       text        NOT NULL,
    user_id         text        NOT NULL,
    conversation_id text        NOT NULL,
    turn_id         uuid,
    type            text        NOT NULL,
    occurred_at     timestamptz NOT NULL,
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    payload         jsonb       NOT NULL
);
CREATE INDEX conversation_events_by_conversation
    ON conversation_events (tenant_id, user_id, conversation_id, position);

-- Training plans: the agent proposes drafts and revisions of drafts; making a plan active is a user action (a later
-- change). At most one active plan per user, enforced here whatever the application does.
CREATE TABLE training_plans (
    id               uuid        PRIMARY KEY,
    tenant_id        text        NOT NULL,
    user_id          text        NOT NULL,
    name             text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
    goal             text,
    starts_on        date        NOT NULL,
    schedule         text        NOT NULL,
    status           text        NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'archived')),
    source_action_id uuid        UNIQUE,
    version          bigint      NOT NULL DEFAULT 1,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX one_active_plan_per_user ON training_plans (tenant_id, user_id) WHERE status = 'active';
CREATE INDEX training_plans_by_user ON training_plans (tenant_id, user_id, status);

-- A deleted transaction is marked, not removed: the executor role still has no DELETE anywhere, and the row stays for
-- the audit trail (and a later undo). Every read of the ledger leaves deleted rows out.
ALTER TABLE transactions ADD COLUMN deleted_at timestamptz, ADD COLUMN deleted_by_action uuid;

DO $$
DECLARE
    isolated text;
BEGIN
    FOREACH isolated IN ARRAY ARRAY['conversation_events', 'training_plans'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', isolated);
        EXECUTE format('CREATE POLICY tenant_rows ON %I'
                       ' USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant())', isolated);
    END LOOP;
END
$$;

GRANT SELECT, INSERT ON conversation_events TO ${executorRole};
GRANT SELECT, INSERT ON training_plans TO ${executorRole};
-- Revising a draft changes its content; status moves come with the user's commit action, not from the agent's kinds.
GRANT UPDATE (name, goal, starts_on, schedule, version, updated_at) ON training_plans TO ${executorRole};
-- Editing changes the editable fields; deleting marks the row.
GRANT UPDATE (amount, category, description, occurred_on, version, deleted_at, deleted_by_action)
    ON transactions TO ${executorRole};
GRANT SELECT ON conversation_events, training_plans TO ${readerRole};
