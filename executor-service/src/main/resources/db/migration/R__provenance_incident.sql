-- The incident switch (issue 39, part 4; docs/security/auto-apply.md): marks every action whose proposal an agent
-- stamped clean (context_clean) since p_since, in tenant p_tenant or in every tenant (null), as not clean, and records
-- the declaration in provenance_incidents. From then on the text those actions wrote (notes, categories, names, plans)
-- reads as foreign to the agent, so no later clean turn treats it as its user's own.
--
-- An operator command, not an API: EXECUTE is the owner's only (the role that runs the migrations); neither the
-- executor's role nor the agent's roles may call it, and no HTTP endpoint does. Lowering the mark is the safe
-- direction (R__actions_auto_apply_marks.sql refuses raising it), so the worst a mistaken call does is hold more
-- proposals for a person and taint more turns.
--
-- Limits: it changes what is read from now on. Proposals that already applied on arrival stay applied (undo them if
-- need be), and model replies already stored in conversations are not rewritten; a conversation that read the text
-- in an earlier turn was tainted only if the text was foreign then.
CREATE OR REPLACE FUNCTION distrust_clean_marks(p_since timestamptz, p_tenant text, p_reason text) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    marked integer;
BEGIN
    IF p_since IS NULL OR p_reason IS NULL OR char_length(p_reason) NOT BETWEEN 1 AND 500 THEN
        RAISE EXCEPTION 'name the time from which marks are distrusted and the reason (1 to 500 characters)'
            USING ERRCODE = 'check_violation';
    END IF;
    UPDATE actions SET context_clean = false
    WHERE context_clean AND proposed_at >= p_since AND (p_tenant IS NULL OR tenant_id = p_tenant);
    GET DIAGNOSTICS marked = ROW_COUNT;
    INSERT INTO provenance_incidents (tenant_id, since, reason, actions_marked)
    VALUES (p_tenant, p_since, p_reason, marked);
    RETURN marked;
END
$$;
REVOKE ALL ON FUNCTION distrust_clean_marks(timestamptz, text, text) FROM PUBLIC;
