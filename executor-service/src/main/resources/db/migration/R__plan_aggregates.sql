-- Plan mode's aggregates that build one value from many rows (issue 40). PostgreSQL's string_agg and array_agg hold
-- that value whole in the backend's memory, bounded by nothing but the 1 GB value limit: over a three-way cross join
-- of 3,000 transactions, one run grew its backend by 500 to 900 MB before the statement timeout. Neither work_mem nor
-- temp_file_limit applies, PostgreSQL has no per-session memory limit, and an estimate from the planner is the
-- statement's own to lower (docs/adr/0006-plan-statements-bounded-in-memory.md).
--
-- These are the same aggregates with a cap: the value a call builds may reach plan_functions.value_cap() bytes; the
-- row that would take it past raises SQLSTATE 54000 (program_limit_exceeded) and the run ends with nothing returned.
-- Plan sessions put this schema first on their search_path (agent-service's PlanSessions), so string_agg(text, text)
-- and array_agg(anynonarray) in a drafted statement resolve here (an identical signature earlier on the path hides
-- pg_catalog's), and the analysis refuses pg_catalog's own (StatementAnalysis.GROWING).
--
-- Limits: the transition copies the value once per row (an SQL function cannot keep PostgreSQL's internal buffer), so
-- building a value near the cap from tens of thousands of rows takes seconds and meets the statement timeout instead;
-- a run shows 1,000 characters of a value anyway. The cap bounds each value; a statement that builds many at once (one
-- per group of a hash aggregate) is bounded by work_mem's spilling, since PostgreSQL counts the values in its hash
-- table's memory. The bytea form of string_agg and array_agg of arrays are not provided: the analysis refuses them.
CREATE SCHEMA IF NOT EXISTS plan_functions;
REVOKE ALL ON SCHEMA plan_functions FROM PUBLIC;
GRANT USAGE ON SCHEMA plan_functions TO ${planRole};

-- The most bytes one value built by these aggregates may hold: 1 MiB.
CREATE OR REPLACE FUNCTION plan_functions.value_cap() RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 1048576 $$;

CREATE OR REPLACE FUNCTION plan_functions.value_too_large(p_bytes bigint) RETURNS void
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RAISE EXCEPTION 'a value built by string_agg or array_agg reached % bytes; plan runs allow % (filter the rows'
        ' first, aggregate numbers, or list the rows themselves)', p_bytes, plan_functions.value_cap()
        USING ERRCODE = '54000';
END;
$$;

CREATE OR REPLACE FUNCTION plan_functions.string_agg_step(p_state text, p_value text, p_delimiter text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    grown bigint;
BEGIN
    IF p_value IS NULL THEN
        RETURN p_state;
    END IF;
    grown := coalesce(pg_catalog.octet_length(p_state) + pg_catalog.octet_length(coalesce(p_delimiter, '')), 0)
             + pg_catalog.octet_length(p_value);
    IF grown > plan_functions.value_cap() THEN
        PERFORM plan_functions.value_too_large(grown);
    END IF;
    IF p_state IS NULL THEN
        RETURN p_value;
    END IF;
    RETURN p_state || coalesce(p_delimiter, '') || p_value;
END;
$$;

CREATE OR REPLACE FUNCTION plan_functions.array_agg_step(p_state anyarray, p_value anynonarray) RETURNS anyarray
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    grown bigint := coalesce(pg_catalog.pg_column_size(p_state), 0) + coalesce(pg_catalog.pg_column_size(p_value), 0);
BEGIN
    IF grown > plan_functions.value_cap() THEN
        PERFORM plan_functions.value_too_large(grown);
    END IF;
    RETURN pg_catalog.array_append(p_state, p_value);
END;
$$;

-- CREATE OR REPLACE AGGREGATE keeps the aggregates' ids, so views and grants that name them stay valid.
CREATE OR REPLACE AGGREGATE plan_functions.string_agg(text, text) (
    SFUNC = plan_functions.string_agg_step, STYPE = text, PARALLEL = SAFE);
CREATE OR REPLACE AGGREGATE plan_functions.array_agg(anynonarray) (
    SFUNC = plan_functions.array_agg_step, STYPE = anyarray, PARALLEL = SAFE);

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA plan_functions FROM PUBLIC;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA plan_functions TO ${planRole};
