-- The outbox relay's two cross-tenant steps, each run as the owner (the application role sees one tenant's rows only),
-- each doing one narrow thing. search_path pinned with pg_temp last (see V7).
-- The claim: the oldest unpublished events of every tenant, locked until the caller's transaction ends (SKIP LOCKED:
-- two relays never hold the same row).
-- Its tenant too: the relay copies a listed tenant's outcomes to that tenant's own topic (OutboxRelay). The result's
-- shape changed, which CREATE OR REPLACE cannot do: dropped and created again, its grant with it.
DROP FUNCTION IF EXISTS outbox_claim(integer);
CREATE OR REPLACE FUNCTION outbox_claim(p_limit integer)
    RETURNS TABLE (id bigint, tenant_id text, topic text, message_key text, payload text)
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT o.id, o.tenant_id, o.topic, o.message_key, o.payload FROM outbox o
    WHERE o.published_at IS NULL ORDER BY o.id LIMIT p_limit FOR UPDATE SKIP LOCKED;
$$;
REVOKE ALL ON FUNCTION outbox_claim(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION outbox_claim(integer) TO ${executorRole};

-- The stamp: published, once (an event already stamped is not stamped again); returns how many were stamped.
CREATE OR REPLACE FUNCTION outbox_mark_published(p_ids bigint[]) RETURNS integer
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH stamped AS (
        UPDATE outbox SET published_at = now() WHERE id = ANY (p_ids) AND published_at IS NULL RETURNING 1)
    SELECT count(*)::integer FROM stamped;
$$;
REVOKE ALL ON FUNCTION outbox_mark_published(bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION outbox_mark_published(bigint[]) TO ${executorRole};
