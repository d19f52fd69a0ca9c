-- Webhook notifications (issue 44, docs/approvals.md): a person names a URL they want to be told at, the tenant's
-- administrators name the origins a webhook may go to, and every message is signed with the tenant's secret.
--
-- tenant_members.webhook_url, webhook_format: the person's own webhook (PUT /api/me/notifications) and the body it
-- takes ('standard': Countersign's JSON; 'slack': a Slack-compatible {"text": ...}). A sign-in never changes them.
-- A URL here is only a wish: a message to it is sent only if its origin is on the tenant's allow-list when it is due,
-- and is refused (and recorded) otherwise.
ALTER TABLE tenant_members
    ADD COLUMN webhook_url text
        CHECK (char_length(webhook_url) BETWEEN 10 AND 2048 AND webhook_url ~ '^https?://[^/?#@[:space:][:cntrl:]]+'
               AND webhook_url !~ '[[:space:][:cntrl:]]'),
    ADD COLUMN webhook_format text NOT NULL DEFAULT 'standard' CHECK (webhook_format IN ('standard', 'slack'));

-- tenant_policies.webhook_origins: the allow-list, origins (scheme, host, port) a webhook may go to; NULL or empty:
-- none. Adding one is a loosening change (two administrators, PolicyChanges). Audited with the other policies
-- (R__tenant_policy_history.sql).
ALTER TABLE tenant_policies
    ADD COLUMN webhook_origins text[]
        CHECK (array_position(webhook_origins, NULL) IS NULL AND cardinality(webhook_origins) <= 32);
ALTER TABLE tenant_policy_history ADD COLUMN webhook_origins text[];

-- tenant_webhook_secrets: the key every webhook of the tenant is signed with (Standard Webhooks: HMAC-SHA256 over the
-- message id, a timestamp and the body), made on first use; its administrators read it to configure their receivers.
-- Readable by the executor's role only (the agent's role has no grant): a dump of the database reveals it.
CREATE TABLE tenant_webhook_secrets (
    tenant_id  text        PRIMARY KEY,
    secret     text        NOT NULL CHECK (secret ~ '^whsec_[A-Za-z0-9+/=]{40,100}$'),
    created_at timestamptz NOT NULL DEFAULT statement_timestamp()
);
ALTER TABLE tenant_webhook_secrets ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON tenant_webhook_secrets
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
REVOKE ALL ON tenant_webhook_secrets FROM PUBLIC;
GRANT SELECT, INSERT ON tenant_webhook_secrets TO ${executorRole};
