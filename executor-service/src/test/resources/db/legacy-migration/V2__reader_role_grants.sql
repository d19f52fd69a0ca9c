-- The agent's reader role may SELECT the ledger and the actions, never write, and never see token hashes.
-- The role itself is created by whoever provisions the database (the local stack, CloudNativePG in Kubernetes).
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${readerRole}') THEN
        EXECUTE 'GRANT USAGE ON SCHEMA public TO ${readerRole}';
        EXECUTE 'GRANT SELECT ON wallets, transactions TO ${readerRole}';
        EXECUTE 'GRANT SELECT (id, tenant_id, requested_by, conversation_id, turn_id, kind, tier, status, params,'
             || ' params_hash, summary, proposed_at, expires_at, confirmed_by, confirmed_at, executed_at, result)'
             || ' ON actions TO ${readerRole}';
    ELSE
        -- Failing here keeps the migration unapplied, so it runs again once the role exists.
        RAISE EXCEPTION 'the reader role ${readerRole} does not exist: create it (LOGIN, no privileges) first';
    END IF;
END
$$;
