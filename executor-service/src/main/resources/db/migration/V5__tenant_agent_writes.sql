-- The per-tenant kill switch for agent writes, and its append-only audit.
CREATE TABLE tenant_policies (
    tenant_id    text        PRIMARY KEY,
    agent_writes text        NOT NULL CHECK (agent_writes IN ('enabled', 'staged_only', 'disabled')),
    updated_by   text        NOT NULL,
    updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tenant_policy_history (
    id           bigserial   PRIMARY KEY,
    tenant_id    text        NOT NULL,
    agent_writes text        NOT NULL,
    changed_by   text        NOT NULL,
    changed_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Every change is appended to the history by R__tenant_policy_history.sql; the history is append-only
-- (R__append_only_trails.sql); a policy is changed, never deleted (R__tenant_policies_kept.sql).

GRANT SELECT ON tenant_policies TO ${readerRole};
