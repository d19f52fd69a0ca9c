-- Retention of the two tables that only carry events: published outbox rows (oldest first) and the consumers' dedup
-- records (in no particular order) older than the caller's cutoff are deleted, at most p_limit rows a call; each
-- returns how many it deleted. Neither table has an index on its time column (it would cost every write): a call walks
-- the outbox's primary key from the oldest row, and scans processed_events until it has p_limit rows or reaches the end.
-- Each runs as the owner (the application role cannot delete from either table), search_path pinned with pg_temp last
-- (see V7). Whatever the caller asks, nothing younger than a day goes (the floor below), an unpublished outbox row never
-- does, and rows another transaction holds (the relay's claim) are skipped.
CREATE OR REPLACE FUNCTION outbox_prune(p_published_before timestamptz, p_limit integer) RETURNS integer
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH gone AS (
        DELETE FROM outbox WHERE id IN (
            SELECT o.id FROM outbox o
            WHERE o.published_at < least(p_published_before, now() - interval '1 day')
            ORDER BY o.id LIMIT p_limit FOR UPDATE SKIP LOCKED)
        RETURNING 1)
    SELECT count(*)::integer FROM gone;
$$;
REVOKE ALL ON FUNCTION outbox_prune(timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION outbox_prune(timestamptz, integer) TO ${executorRole};

-- A dedup record may go once its event can no longer be delivered again: the caller's cutoff must lie beyond the
-- consumed topics' retention (docs/reliability.md, "Retention").
CREATE OR REPLACE FUNCTION processed_events_prune(p_processed_before timestamptz, p_limit integer) RETURNS integer
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH gone AS (
        DELETE FROM processed_events WHERE ctid = ANY (ARRAY(
            SELECT p.ctid FROM processed_events p
            WHERE p.processed_at < least(p_processed_before, now() - interval '1 day')
            LIMIT p_limit FOR UPDATE SKIP LOCKED))
        RETURNING 1)
    SELECT count(*)::integer FROM gone;
$$;
REVOKE ALL ON FUNCTION processed_events_prune(timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION processed_events_prune(timestamptz, integer) TO ${executorRole};

-- A used approver token's record may go an hour after the token expired (the verifiers' clock leeway is far less): a
-- replay of it then fails verification before its record is looked up.
CREATE OR REPLACE FUNCTION approver_token_uses_prune(p_expired_before timestamptz, p_limit integer) RETURNS integer
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH gone AS (
        DELETE FROM approver_token_uses WHERE token_id = ANY (ARRAY(
            SELECT u.token_id FROM approver_token_uses u
            WHERE u.expires_at < least(p_expired_before, now() - interval '1 hour')
            LIMIT p_limit FOR UPDATE SKIP LOCKED))
        RETURNING 1)
    SELECT count(*)::integer FROM gone;
$$;
REVOKE ALL ON FUNCTION approver_token_uses_prune(timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION approver_token_uses_prune(timestamptz, integer) TO ${executorRole};
