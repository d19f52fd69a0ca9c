-- Countersign executor schema, version 1: the ledger, the actions and their state machine, the outbox.

CREATE TABLE wallets (
    id          uuid        PRIMARY KEY,
    tenant_id   text        NOT NULL,
    owner_id    text        NOT NULL,
    name        text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 60),
    currency    char(3)     NOT NULL,
    version     bigint      NOT NULL DEFAULT 1,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, id)
);

CREATE TABLE transactions (
    id               uuid          PRIMARY KEY,
    tenant_id        text          NOT NULL,
    wallet_id        uuid          NOT NULL,
    amount           numeric(14,2) NOT NULL CHECK (amount > 0),
    category         text          NOT NULL,
    description      text,
    occurred_on      date          NOT NULL,
    -- The action that wrote the row. Unique: whatever happens above, one action writes at most one ledger row.
    source_action_id uuid          UNIQUE,
    version          bigint        NOT NULL DEFAULT 1,
    created_at       timestamptz   NOT NULL DEFAULT now(),
    FOREIGN KEY (tenant_id, wallet_id) REFERENCES wallets (tenant_id, id)
);
CREATE INDEX transactions_by_wallet ON transactions (tenant_id, wallet_id, occurred_on DESC);

CREATE TABLE actions (
    id              uuid        PRIMARY KEY,
    tenant_id       text        NOT NULL,
    requested_by    text        NOT NULL,
    conversation_id text,
    turn_id         uuid,
    kind            text        NOT NULL,
    tier            text        NOT NULL CHECK (tier IN ('low', 'medium', 'high')),
    status          text        NOT NULL CHECK (status IN
                        ('proposed', 'confirmed', 'executed', 'cancelled', 'expired', 'failed', 'undone')),
    params          jsonb       NOT NULL,
    params_hash     char(64)    NOT NULL,
    -- SHA-256 of the one-time confirm token. The raw token is never stored.
    token_hash      char(64)    NOT NULL,
    summary         text        NOT NULL,
    proposed_at     timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    confirmed_by    text,
    confirmed_at    timestamptz,
    executed_at     timestamptz,
    result          jsonb,
    version         bigint      NOT NULL DEFAULT 1
);
CREATE INDEX actions_by_tenant_status ON actions (tenant_id, status);
CREATE INDEX actions_by_conversation ON actions (tenant_id, conversation_id);

-- The state machine's backstop in the database, a trigger on this table: R__actions_state_machine.sql.

-- Events waiting to be published. Written in the same transaction as the state change they report; a relay
-- publishes them and stamps published_at (at least once: consumers deduplicate on event_id).
CREATE TABLE outbox (
    id           bigserial   PRIMARY KEY,
    event_id     uuid        NOT NULL UNIQUE,
    topic        text        NOT NULL,
    message_key  text        NOT NULL,
    payload      text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;

-- Consumed event ids, recorded in the same transaction as their effect: a redelivered event changes nothing.
CREATE TABLE processed_events (
    consumer     text        NOT NULL,
    event_id     uuid        NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    -- Per consumer: the same id arriving on another topic is another event.
    PRIMARY KEY (consumer, event_id)
);
