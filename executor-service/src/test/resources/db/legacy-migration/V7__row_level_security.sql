-- Tenant isolation in the database. From here on the schema belongs to the owner role that runs these migrations, and
-- the executor runs as a separate application role (${executorRole}) that:
--   * holds only the grants below: no DELETE or TRUNCATE anywhere, no ALTER, so it cannot drop the guard triggers or
--     these policies;
--   * sees and writes, through row-level security, only the rows of the tenant its transaction names with
--     set_config('countersign.tenant_id', <tenant>, true) (TenantTransactions in the executor, the ledger reader in the
--     agent). No tenant named: no rows. The agent's reader role is under the same policies.
--   * reaches the two cross-tenant jobs (the outbox relay, the expiry sweep's search) and the consumers' dedup table
--     only through the SECURITY DEFINER functions at the end, each doing one narrow thing;
--   * cannot write the audit trails: the history triggers run as the owner from here on.
-- Every SECURITY DEFINER function pins search_path with pg_temp last, so a caller's temporary look-alike tables or
-- functions are never resolved in the owner's name. Operators should also REVOKE TEMP ON DATABASE ... FROM PUBLIC
-- (the local stack does).
-- Limits: the setting is chosen by the application, so RLS protects against a query that forgets its tenant filter or
-- takes the wrong id, not against code in the executor that deliberately names another tenant. The owner role is not
-- subject to RLS (no FORCE): it is for migrations and operators, never for the services.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${executorRole}') THEN
        RAISE EXCEPTION 'the executor role ${executorRole} does not exist: create it (LOGIN, no privileges) first';
    END IF;
    IF '${executorRole}' = current_user THEN
        RAISE EXCEPTION 'migrations must run as the schema owner, not as the executor role ${executorRole}: row-level'
            ' security does not apply to a table''s owner';
    END IF;
    -- A database created before the owner role existed has tables owned by the executor role, which RLS would not
    -- fence. Upgrade it first, as a superuser: REASSIGN OWNED BY ${executorRole} TO <owner role>; and make the owner
    -- role the database's owner.
    IF EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = 'public' AND tableowner = '${executorRole}') THEN
        RAISE EXCEPTION 'tables in schema public belong to the executor role ${executorRole}: reassign them to the'
            ' schema owner first (REASSIGN OWNED BY ${executorRole} TO <owner>, as a superuser)';
    END IF;
END
$$;

-- The tenant the current transaction named, or NULL: a connection that named one in an earlier transaction reads ''
-- afterwards, which must not match anything either.
CREATE FUNCTION current_tenant() RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT nullif(current_setting('countersign.tenant_id', true), '');
$$;

-- The outbox learns each event's tenant, so it can be isolated like everything else.
ALTER TABLE outbox ADD COLUMN tenant_id text;
UPDATE outbox SET tenant_id = payload::jsonb ->> 'tenantId';
ALTER TABLE outbox ALTER COLUMN tenant_id SET NOT NULL;

GRANT USAGE ON SCHEMA public TO ${executorRole};
-- Only what the code does today: executors rename wallets and add transactions; new kinds widen this explicitly.
GRANT SELECT, UPDATE ON wallets TO ${executorRole};
GRANT SELECT, INSERT ON transactions, action_approvals TO ${executorRole};
GRANT SELECT, INSERT, UPDATE ON actions, tenant_policies TO ${executorRole};
GRANT SELECT ON action_history, tenant_policy_history TO ${executorRole};
GRANT INSERT ON outbox TO ${executorRole};
GRANT USAGE ON SEQUENCE outbox_id_seq TO ${executorRole};

-- The audit trails are appended by the database only: their triggers run as the owner.
ALTER FUNCTION action_history_append() SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp;
ALTER FUNCTION tenant_policy_history_append() SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp;
REVOKE ALL ON FUNCTION action_history_append(), tenant_policy_history_append() FROM PUBLIC;

-- One policy per table, the same rule everywhere.
DO $$
DECLARE
    isolated text;
BEGIN
    FOREACH isolated IN ARRAY ARRAY['wallets', 'transactions', 'actions', 'action_history', 'action_approvals',
                                    'tenant_policies', 'tenant_policy_history', 'outbox'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', isolated);
        EXECUTE format('CREATE POLICY tenant_rows ON %I'
                       ' USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant())', isolated);
    END LOOP;
END
$$;

-- Consumers' dedup: true the first time (consumer, event id) is seen, in the caller's transaction. Event ids are
-- global, not per tenant, so the table is not isolated; the application role cannot read or change it directly.
CREATE FUNCTION first_delivery(p_consumer text, p_event_id uuid) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO processed_events (consumer, event_id) VALUES (p_consumer, p_event_id)
    ON CONFLICT (consumer, event_id) DO NOTHING;
    RETURN FOUND;
END;
$$;

-- The relay's claim: the oldest unpublished events of every tenant, locked until the caller's transaction ends (SKIP
-- LOCKED: two relays never hold the same row).
CREATE FUNCTION outbox_claim(p_limit integer)
    RETURNS TABLE (id bigint, topic text, message_key text, payload text)
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT o.id, o.topic, o.message_key, o.payload FROM outbox o
    WHERE o.published_at IS NULL ORDER BY o.id LIMIT p_limit FOR UPDATE SKIP LOCKED;
$$;

CREATE FUNCTION outbox_mark_published(p_ids bigint[]) RETURNS integer
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH stamped AS (
        UPDATE outbox SET published_at = now() WHERE id = ANY (p_ids) AND published_at IS NULL RETURNING 1)
    SELECT count(*)::integer FROM stamped;
$$;

-- The sweep's search: which undecided actions, of which tenants, are past their window. Only ids and tenants; the sweep
-- then expires them under each tenant's own policy, with the same compare-and-swap as everywhere else.
CREATE FUNCTION actions_due_for_expiry(p_limit integer) RETURNS TABLE (tenant_id text, id uuid)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT a.tenant_id, a.id FROM actions a
    WHERE a.status IN ('proposed', 'confirmed') AND a.expires_at <= now()
    ORDER BY a.expires_at LIMIT p_limit;
$$;

REVOKE ALL ON FUNCTION first_delivery(text, uuid), outbox_claim(integer), outbox_mark_published(bigint[]),
    actions_due_for_expiry(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION first_delivery(text, uuid), outbox_claim(integer), outbox_mark_published(bigint[]),
    actions_due_for_expiry(integer) TO ${executorRole};
