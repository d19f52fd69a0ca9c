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

-- The state machine's backstop in the database. The rule callers use is ActionTransitions in the executor; this
-- trigger refuses, even from a raw statement that skips the application: any status move outside the state machine;
-- any change to what was proposed; extending the decision window; confirming after it closed; setting who confirmed
-- or what was written outside the move that does so; replacing the token once the action left proposed; any change to
-- a finished action; deleting or truncating actions. A test asserts that both accept exactly the same moves.
-- Limit: the executor's role owns the table and could disable the trigger; a separate migration owner would close
-- that (see README).
CREATE FUNCTION actions_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'TRUNCATE') THEN
        RAISE EXCEPTION 'actions are never deleted' USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'proposed' OR NEW.confirmed_by IS NOT NULL OR NEW.confirmed_at IS NOT NULL
                OR NEW.executed_at IS NOT NULL OR NEW.result IS NOT NULL THEN
            RAISE EXCEPTION 'an action is born proposed, not %, and undecided', NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.expires_at <= NEW.proposed_at THEN
            RAISE EXCEPTION 'an action expires after it is proposed' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.id <> OLD.id OR NEW.tenant_id <> OLD.tenant_id OR NEW.kind <> OLD.kind OR NEW.params <> OLD.params
            OR NEW.params_hash <> OLD.params_hash OR NEW.requested_by <> OLD.requested_by
            OR NEW.proposed_at <> OLD.proposed_at OR NEW.summary <> OLD.summary OR NEW.tier <> OLD.tier
            OR NEW.conversation_id IS DISTINCT FROM OLD.conversation_id
            OR NEW.turn_id IS DISTINCT FROM OLD.turn_id THEN
        RAISE EXCEPTION 'what was proposed cannot change' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.expires_at > OLD.expires_at THEN
        RAISE EXCEPTION 'the decision window can be shortened, never extended' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status = OLD.status THEN
        IF OLD.status <> 'proposed' THEN
            IF NEW.token_hash <> OLD.token_hash OR NEW.expires_at <> OLD.expires_at
                    OR NEW.confirmed_by IS DISTINCT FROM OLD.confirmed_by
                    OR NEW.confirmed_at IS DISTINCT FROM OLD.confirmed_at
                    OR NEW.executed_at IS DISTINCT FROM OLD.executed_at
                    OR NEW.result IS DISTINCT FROM OLD.result THEN
                RAISE EXCEPTION 'a % action cannot change', OLD.status USING ERRCODE = 'check_violation';
            END IF;
        ELSIF NEW.confirmed_by IS NOT NULL OR NEW.confirmed_at IS NOT NULL OR NEW.executed_at IS NOT NULL
                OR NEW.result IS NOT NULL THEN
            RAISE EXCEPTION 'a proposed action has no decision yet' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF (OLD.status, NEW.status) NOT IN (
            ('proposed', 'confirmed'), ('confirmed', 'executed'),
            ('proposed', 'cancelled'), ('confirmed', 'cancelled'),
            ('proposed', 'expired'), ('confirmed', 'expired'),
            ('confirmed', 'failed'), ('executed', 'undone')) THEN
        RAISE EXCEPTION 'illegal action transition % -> %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.token_hash <> OLD.token_hash THEN
        RAISE EXCEPTION 'the confirm token can only be replaced while proposed' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status = 'proposed' AND NEW.status = 'confirmed' AND OLD.expires_at <= now() THEN
        RAISE EXCEPTION 'the decision window has closed' USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.confirmed_by IS DISTINCT FROM OLD.confirmed_by OR NEW.confirmed_at IS DISTINCT FROM OLD.confirmed_at)
            AND NOT (OLD.status = 'proposed' AND NEW.status = 'confirmed') THEN
        RAISE EXCEPTION 'only confirming records who confirmed' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.result IS DISTINCT FROM OLD.result AND NOT (OLD.status = 'confirmed' AND NEW.status IN ('executed', 'failed'))
            THEN
        RAISE EXCEPTION 'only executing or failing records a result' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.executed_at IS DISTINCT FROM OLD.executed_at AND NOT (OLD.status = 'confirmed' AND NEW.status = 'executed')
            THEN
        RAISE EXCEPTION 'only executing records when' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER actions_guard BEFORE INSERT OR UPDATE OR DELETE ON actions FOR EACH ROW EXECUTE FUNCTION actions_guard();
CREATE TRIGGER actions_no_truncate BEFORE TRUNCATE ON actions FOR EACH STATEMENT EXECUTE FUNCTION actions_guard();

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
