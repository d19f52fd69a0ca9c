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
