-- Consumers' dedup: the first time (consumer, event id) is seen, in the caller's transaction. Event ids are global, not
-- per tenant, so processed_events is not isolated; the application role cannot read or change it directly, only
-- through these functions, which run as the owner (search_path pinned with pg_temp last, see V7).
-- first_deliveries answers the ids of a batch seen for the first time (staging stores a poll batch in one
-- transaction). Inserted in id order, so two transactions claiming overlapping ids wait for each other in one order and
-- never deadlock; an id twice in the batch is one delivery. Refused (CS401, current_tenant()) in a transaction that
-- named no tenant: the executor sends BEGIN, its settings and a work's first statement together (TenantTransactions),
-- and should that BEGIN fail, a claim running alone would commit a delivery as processed with nothing of its work.
CREATE OR REPLACE FUNCTION first_deliveries(p_consumer text, p_event_ids uuid[]) RETURNS SETOF uuid
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    INSERT INTO processed_events (consumer, event_id)
    SELECT DISTINCT p_consumer, e FROM unnest(p_event_ids) AS e
    WHERE public.current_tenant() IS NOT NULL
    ORDER BY 2
    ON CONFLICT (consumer, event_id) DO NOTHING
    RETURNING event_id
$$;
REVOKE ALL ON FUNCTION first_deliveries(text, uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION first_deliveries(text, uuid[]) TO ${executorRole};

-- One event: true the first time it is seen.
CREATE OR REPLACE FUNCTION first_delivery(p_consumer text, p_event_id uuid) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT EXISTS (SELECT FROM public.first_deliveries(p_consumer, ARRAY[p_event_id]))
$$;
REVOKE ALL ON FUNCTION first_delivery(text, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION first_delivery(text, uuid) TO ${executorRole};
