-- A training plan's status moves one way only: draft -> active -> archived (a draft may also be archived); an archived
-- plan never comes back, whatever the application does. A plan becomes active only naming its own user as who
-- activated it, and when; those never change afterwards; content changes only while a plan is and stays a draft. Only
-- the table's owner (fixtures, operators) inserts non-drafts. Committing a plan is a user action on executor-service,
-- never an action kind the agent could propose.
CREATE OR REPLACE FUNCTION training_plans_status_guard() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'draft' AND current_user IS DISTINCT FROM
                (SELECT pg_get_userbyid(c.relowner) FROM pg_class c WHERE c.oid = TG_RELID) THEN
            RAISE EXCEPTION 'a plan is born a draft' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status AND NOT (
            (OLD.status = 'draft' AND NEW.status IN ('active', 'archived'))
            OR (OLD.status = 'active' AND NEW.status = 'archived')) THEN
        RAISE EXCEPTION 'a plan cannot go from % to %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status = 'active' AND OLD.status = 'draft'
            AND (NEW.activated_by IS NULL OR NEW.activated_at IS NULL OR NEW.activated_by <> NEW.user_id) THEN
        RAISE EXCEPTION 'a plan is activated by its own user, and says when' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status <> 'draft' AND (NEW.activated_by, NEW.activated_at)
            IS DISTINCT FROM (OLD.activated_by, OLD.activated_at) THEN
        RAISE EXCEPTION 'who activated a plan, and when, cannot change' USING ERRCODE = 'check_violation';
    END IF;
    IF NOT (OLD.status = 'draft' AND NEW.status = 'draft') AND (NEW.name, NEW.goal, NEW.starts_on, NEW.schedule)
            IS DISTINCT FROM (OLD.name, OLD.goal, OLD.starts_on, OLD.schedule) THEN
        RAISE EXCEPTION 'only a draft plan can be revised' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS training_plans_status_guard ON training_plans;
CREATE TRIGGER training_plans_status_guard BEFORE INSERT OR UPDATE ON training_plans
    FOR EACH ROW EXECUTE FUNCTION training_plans_status_guard();
