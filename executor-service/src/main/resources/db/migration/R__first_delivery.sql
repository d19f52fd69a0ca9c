-- Consumers' dedup: true the first time (consumer, event id) is seen, in the caller's transaction. Event ids are
-- global, not per tenant, so processed_events is not isolated; the application role cannot read or change it directly,
-- only through this function, which runs as the owner (search_path pinned with pg_temp last, see V7).
CREATE OR REPLACE FUNCTION first_delivery(p_consumer text, p_event_id uuid) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO processed_events (consumer, event_id) VALUES (p_consumer, p_event_id)
    ON CONFLICT (consumer, event_id) DO NOTHING;
    RETURN FOUND;
END;
$$;
REVOKE ALL ON FUNCTION first_delivery(text, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION first_delivery(text, uuid) TO ${executorRole};

-- The same for a batch of events (staging stores a poll batch in one transaction): answers the ids seen for the first
-- time. Inserted in id order, so two transactions claiming overlapping ids wait for each other in one order and never
-- deadlock; an id twice in the batch is one delivery.
CREATE OR REPLACE FUNCTION first_deliveries(p_consumer text, p_event_ids uuid[]) RETURNS SETOF uuid
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    INSERT INTO processed_events (consumer, event_id)
    SELECT DISTINCT p_consumer, e FROM unnest(p_event_ids) AS e ORDER BY 2
    ON CONFLICT (consumer, event_id) DO NOTHING
    RETURNING event_id
$$;
REVOKE ALL ON FUNCTION first_deliveries(text, uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION first_deliveries(text, uuid[]) TO ${executorRole};
