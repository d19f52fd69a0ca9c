-- The plan role's fence: run as a superuser, in the countersign database, once the roles exist (CloudNativePG runs it
-- at cluster creation; the local stack and the tests run it on every start; it is idempotent). An existing database
-- needs it run by hand, before the executor's migration V18.
--
-- countersign_plan runs, for a person, the single SELECT a plan turn drafted (agent-service, PlanStatementRunner). The
-- agent's analysis of the statement decides whether it may run; this file is what holds when that analysis is wrong:
--   * tables: SELECT on the plan inventory's tables only (granted by the migration, under row-level security);
--   * functions: PUBLIC may no longer execute the ones below, which change settings (and with them the tenant that
--     row-level security reads), run SQL text (ts_stat, ts_rewrite) or read a relation by name, show other sessions'
--     statements, prepared statements, locks or activity counters, take locks that outlive the transaction, or
--     signal other sessions. The roles Countersign runs as get them back; the plan role does not. agent-service
--     checks before every run (PlanSessions) that the plan role cannot execute any of them, is neither superuser nor
--     exempt from row-level security, may SELECT no table beyond plan mode's, and has a temp_file_limit; it refuses
--     to run otherwise.
--   * resources: a statement timeout, work_mem and temp_file_limit of its own (temp_file_limit can only be set by a
--     superuser, so the statement cannot raise it).
-- Limits: the list names functions of PostgreSQL 16 and 17; a function a later release adds is executable until it is
-- added here (and to PlanSessions.FORBIDDEN, which a test keeps equal to this list). Functions PostgreSQL ships
-- superuser-only (pg_read_file and its kin) stay so. The catalogs stay readable: pg_class.reltuples shows every
-- table's whole size, and pg_locks' underlying function is revoked but pg_class, pg_namespace and the like are not.
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN
        SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p
        WHERE p.pronamespace = 'pg_catalog'::regnamespace
          AND (p.proname = ANY (ARRAY[
              'set_config',
              'query_to_xml', 'query_to_xmlschema', 'query_to_xml_and_xmlschema',
              'cursor_to_xml', 'cursor_to_xmlschema',
              'table_to_xml', 'table_to_xmlschema', 'table_to_xml_and_xmlschema',
              'schema_to_xml', 'schema_to_xmlschema', 'schema_to_xml_and_xmlschema',
              'database_to_xml', 'database_to_xmlschema', 'database_to_xml_and_xmlschema',
              'pg_stat_get_activity', 'pg_stat_get_backend_activity',
              'pg_advisory_lock', 'pg_advisory_lock_shared', 'pg_try_advisory_lock', 'pg_try_advisory_lock_shared',
              'pg_advisory_xact_lock', 'pg_advisory_xact_lock_shared', 'pg_try_advisory_xact_lock',
              'pg_try_advisory_xact_lock_shared', 'pg_advisory_unlock', 'pg_advisory_unlock_shared',
              'pg_advisory_unlock_all',
              'pg_cancel_backend', 'pg_terminate_backend', 'pg_notify',
              'ts_stat', 'ts_rewrite', 'pg_prepared_statement', 'pg_lock_status'])
               -- Activity counters: every table's live row counts, whatever the tenant, and other backends.
               OR p.proname LIKE 'pg\_stat\_get\_%')
    LOOP
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO countersign_owner, countersign_executor, countersign_agent', f);
    END LOOP;
    EXECUTE format('GRANT CONNECT, TEMPORARY ON DATABASE %I TO countersign_plan', current_database());
END
$$;
ALTER ROLE countersign_plan SET statement_timeout = '5s';
ALTER ROLE countersign_plan SET work_mem = '4MB';
ALTER ROLE countersign_plan SET temp_file_limit = '64MB';
ALTER ROLE countersign_plan SET idle_in_transaction_session_timeout = '10s';
