-- Reader grants (V23): minted by the executor after it verified a person's token, named by the agent's sessions,
-- revoked by either. current_tenant() (R__current_tenant.sql) turns a grant into the tenant a session sees; this file
-- holds who may see which grant and, for grant holders, whose rows of the tenant they see.

-- Mints a grant for p_user of p_tenant until p_expires_at (at most a day ahead) and answers its secret, which is stored
-- only as a hash. The executor calls it once it has verified the person's token; nobody else may. Bounded: ended grants
-- are deleted as new ones come (up to ten a call), and a person keeps at most 20 live grants (a replica holds one at a
-- time; the oldest beyond that are revoked), so the table holds about 20 rows per person signed in at most.
CREATE OR REPLACE FUNCTION open_reader_grant(p_tenant text, p_user text, p_expires_at timestamptz) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    secret text := replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
BEGIN
    IF p_tenant IS NULL OR p_tenant = '' OR p_user IS NULL OR p_user = '' THEN
        RAISE EXCEPTION 'a reader grant names a tenant and a person' USING ERRCODE = '22023';
    END IF;
    IF p_expires_at IS NULL OR p_expires_at <= statement_timestamp()
            OR p_expires_at > statement_timestamp() + interval '1 day' THEN
        RAISE EXCEPTION 'a reader grant expires within a day' USING ERRCODE = '22023';
    END IF;
    DELETE FROM reader_grants WHERE ctid = ANY (ARRAY(
        SELECT r.ctid FROM reader_grants r WHERE r.expires_at < statement_timestamp()
        LIMIT 10 FOR UPDATE SKIP LOCKED));
    UPDATE reader_grants SET revoked_at = statement_timestamp()
    WHERE secret_hash IN (SELECT r.secret_hash FROM reader_grants r
                          WHERE r.tenant_id = p_tenant AND r.user_id = p_user AND r.revoked_at IS NULL
                          ORDER BY r.created_at DESC OFFSET 19);
    INSERT INTO reader_grants (secret_hash, tenant_id, user_id, expires_at)
    VALUES (sha256(convert_to(secret, 'UTF8')), p_tenant, p_user, p_expires_at);
    RETURN secret;
END;
$$;
REVOKE ALL ON FUNCTION open_reader_grant(text, text, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION open_reader_grant(text, text, timestamptz) TO ${executorRole};

-- Names the grant for the rest of the transaction, for the agent's roles: the plan role may not execute set_config
-- (plan-role.sql), and a parameter keeps the secret out of statement text (logs, pg_stat_statements). Setting it is
-- harmless by itself: a session sees only what a live grant whose secret it holds shows. SECURITY DEFINER (the owner may
-- execute set_config) without a SET clause (which would end the setting with the call); the body names its schema.
CREATE OR REPLACE FUNCTION use_reader_grant(p_secret text) RETURNS void LANGUAGE sql SECURITY DEFINER AS $$
    SELECT pg_catalog.set_config('countersign.reader_grant', p_secret, true);
$$;
REVOKE ALL ON FUNCTION use_reader_grant(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION use_reader_grant(text) TO ${readerRole}, ${planRole};

-- Ends the grant this session names (the agent, when the person signs out); answers whether one was live.
CREATE OR REPLACE FUNCTION revoke_reader_grant() RETURNS boolean
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH ended AS (
        UPDATE reader_grants SET revoked_at = statement_timestamp()
        WHERE secret_hash = sha256(convert_to(current_setting('countersign.reader_grant', true), 'UTF8'))
          AND revoked_at IS NULL AND expires_at > statement_timestamp()
        RETURNING 1)
    SELECT count(*) > 0 FROM ended;
$$;
REVOKE ALL ON FUNCTION revoke_reader_grant() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION revoke_reader_grant() TO ${readerRole}, ${executorRole};

-- A grant holder sees, of its tenant's per-person tables, its own person's rows only: another user's actions (their
-- parameters: e-mail bodies, ticket text), conversations and training plans stay out of reach of the agent's roles even
-- with a live grant of a colleague. Trusted sessions (the executor) are not narrowed. Restrictive: it narrows the tenant
-- policy, it never widens it.
DO $$
DECLARE
    personal record;
BEGIN
    FOR personal IN SELECT * FROM (VALUES ('actions', 'requested_by'), ('conversation_events', 'user_id'),
                                          ('training_plans', 'user_id')) AS t(tablename, person) LOOP
        EXECUTE format('DROP POLICY IF EXISTS own_person_rows ON %I', personal.tablename);
        EXECUTE format('CREATE POLICY own_person_rows ON %I AS RESTRICTIVE FOR SELECT'
                       ' USING (tenant_setting_trusted() OR %I = granted_user())', personal.tablename, personal.person);
    END LOOP;
END
$$;
