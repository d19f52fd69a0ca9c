-- Webhook notifications (issue 44, docs/approvals.md): a person names a URL they want to be told at, the tenant's
-- administrators name the origins a webhook may go to, and every message is signed with the tenant's secret.
--
-- tenant_members.webhook_url, webhook_format: the person's own webhook (PUT /api/me/notifications) and the body it
-- takes ('standard': Countersign's JSON; 'slack': a Slack-compatible {"text": ...}). A sign-in never changes them.
-- A URL here is only a wish: a message to it is sent only if its origin is on the tenant's allow-list when it is due,
-- and is refused (and recorded) otherwise. Its form is NotificationChoice.WEBHOOK_URL's, the same expression: http(s),
-- a host of letters, digits, dots and hyphens, an optional port, then a path and query of RFC 3986 characters and
-- percent escapes only (no user information, no fragment, nothing java.net.URI refuses).
ALTER TABLE tenant_members
    ADD COLUMN webhook_url text
        CHECK (char_length(webhook_url) <= 2048 AND webhook_url ~
               '^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?([/?]([A-Za-z0-9._~!$&''()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?$'),
    ADD COLUMN webhook_format text NOT NULL DEFAULT 'standard' CHECK (webhook_format IN ('standard', 'slack'));

-- tenant_policies.webhook_origins: the allow-list, origins (scheme, host, port) a webhook may go to; NULL or empty:
-- none. Adding one is a loosening change (two administrators, PolicyChanges). Audited with the other policies
-- (R__tenant_policy_history.sql).
-- Each one as WebhookOriginsPolicy.ORIGIN says, stored in lower case.
CREATE FUNCTION webhook_origins_valid(origins text[]) RETURNS boolean
    LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT coalesce(bool_and(o ~ '^https?://[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:[0-9]{1,5})?$'), true)
    FROM unnest(origins) AS o;
$$;
ALTER TABLE tenant_policies
    ADD COLUMN webhook_origins text[]
        CHECK (array_position(webhook_origins, NULL) IS NULL AND cardinality(webhook_origins) <= 32
               AND webhook_origins_valid(webhook_origins));
ALTER TABLE tenant_policy_history ADD COLUMN webhook_origins text[];

-- tenant_webhook_secrets: the tenant's master key for webhook signatures, made on first use (WebhookSecrets). Each
-- person's webhook is signed (Standard Webhooks: HMAC-SHA256 over the message id, a timestamp and the body) with a
-- key derived from it, their user id and their URL, which only that person reads (GET /api/me/notifications): one
-- member's key cannot sign messages another member's receiver accepts. Readable by the executor's role only (the
-- agent's role has no grant): a dump of the database reveals it, and with it every derived key.
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
