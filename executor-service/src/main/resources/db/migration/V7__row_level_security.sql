-- Tenant isolation in the database. From here on the schema belongs to the owner role that runs these migrations, and
-- the executor runs as a separate application role (${executorRole}) that:
--   * holds only the grants below: no DELETE or TRUNCATE anywhere, no ALTER, so it cannot drop the guard triggers or
--     these policies;
--   * sees and writes, through row-level security, only the rows of the tenant its transaction names with
--     set_config('countersign.tenant_id', <tenant>, true) (TenantTransactions in the executor, the ledger reader in the
--     agent). No tenant named: no rows. The agent's reader role is under the same policies.
--   * reaches the two cross-tenant jobs (the outbox relay, the expiry sweep's search) and the consumers' dedup table
--     only through SECURITY DEFINER functions, each doing one narrow thing (R__outbox_relay.sql,
--     R__actions_due_for_expiry.sql, R__first_delivery.sql);
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

-- The audit trails are appended by the database only: their triggers run as the owner (R__action_history.sql,
-- R__tenant_policy_history.sql).

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
