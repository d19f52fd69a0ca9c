-- Reader grants: the only way a session of the agent's roles (${readerRole}, ${planRole}) names a tenant. Before this,
-- row-level security compared rows with countersign.tenant_id, a setting any session may set, so the agent's database
-- credentials alone read every tenant. Now a grant is minted by executor-service for one person of one tenant, only
-- after it verified that person's own token (ReaderGrantResource), and stored here as the SHA-256 of a random secret;
-- the agent's session names the secret (countersign.reader_grant) and sees the grant's tenant, and only that person's
-- own actions and conversations (R__current_tenant.sql, R__reader_grants.sql).
-- Limits: a grant lives as long as the token it was minted from (at most countersign.reader-grants.max-lifetime); who
-- holds its secret may use it until then, or until it is revoked. The owner role and superusers are not fenced by it.
CREATE TABLE reader_grants (
    secret_hash bytea       PRIMARY KEY,
    tenant_id   text        NOT NULL,
    user_id     text        NOT NULL,
    expires_at  timestamptz NOT NULL,
    revoked_at  timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reader_grants_by_expiry ON reader_grants (expires_at);

-- No role but the owner reads or writes it: the executor mints through open_reader_grant(), sessions are judged by
-- granted_tenant() and granted_user() (SECURITY DEFINER). Row-level security with no policy as a second fence.
ALTER TABLE reader_grants ENABLE ROW LEVEL SECURITY;

-- Per person: the agent's reader role no longer reads the actions' trails (history, approvals, idempotency keys), which
-- name every colleague's actions, actors and approvers; the agent never read them. Its own actions it reads from
-- actions, narrowed to its person (R__reader_grants.sql).
REVOKE SELECT ON action_history, action_approvals, idempotency_keys FROM ${readerRole};
