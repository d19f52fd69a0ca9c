-- How agent-service runs a plan statement as the plan role: plan_rows runs the (already analysed and wrapped) query
-- and re-raises any error with its message cut to 300 characters and no detail. PostgreSQL quotes values in messages
-- (an invalid cast quotes its whole input, however large), and the message would otherwise reach the agent whole,
-- past the per-cell cut. A statement timeout (query_canceled) is not caught and passes unchanged.
-- SECURITY INVOKER: it runs with the plan role's own privileges and search path, exactly as the statement would run
-- without it, so a statement that calls it reaches nothing more.
CREATE FUNCTION plan_rows(statement text) RETURNS SETOF record LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY EXECUTE statement;
EXCEPTION WHEN OTHERS THEN
    RAISE EXCEPTION USING ERRCODE = SQLSTATE, MESSAGE = left(SQLERRM, 300);
END
$$;
REVOKE ALL ON FUNCTION plan_rows(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION plan_rows(text) TO ${planRole};
