-- Plan mode's own role (${planRole}): the login role agent-service runs a plan turn's drafted SELECT as, for the person
-- who asked, through a pool of its own. What it may read is granted here and nowhere else: SELECT on the tables plan
-- mode offers (tenant-wide data; the per-user tables, conversations, actions and the audit trails, are not granted), under
-- the same row-level security as every role. Its database-level grants, the built-in functions it may not execute and its
-- resource limits need a superuser: deploy/k8s/base/plan-role.sql.
-- Limits: a column added to these tables later is readable by the plan role at once (a table grant); a table added to
-- plan mode's offer (agent-service countersign.plan.relations) needs a grant here too, or plan runs over it are refused
-- by PostgreSQL.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${planRole}') THEN
        RAISE EXCEPTION 'the plan role ${planRole} does not exist: create it (LOGIN, no privileges) and run'
            ' deploy/k8s/base/plan-role.sql as a superuser first';
    END IF;
    IF '${planRole}' IN (current_user, '${executorRole}', '${readerRole}') THEN
        RAISE EXCEPTION 'the plan role must be a role of its own, not %', '${planRole}';
    END IF;
END
$$;

GRANT USAGE ON SCHEMA public TO ${planRole};
GRANT SELECT ON wallets, transactions TO ${planRole};
