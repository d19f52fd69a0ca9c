-- Edit before approve (issue 44, docs/approvals.md): a person who may decide a proposed action may change the
-- parameters its kind lets a person change; the executor stages a new action that supersedes the old one.
--
-- actions.status 'superseded': the old action, replaced by an edit; terminal, never run. superseded_by: the action that
-- replaced it, set by that move only. supersedes: on the new action, the one it replaced, set at insert only. The two
-- point at each other (checked by actions_supersession, R__action_edits.sql, when the transaction commits), and an
-- action that supersedes another is never applied on arrival (actions_decision_marks_guard).
ALTER TABLE actions DROP CONSTRAINT actions_status_check;
ALTER TABLE actions ADD CONSTRAINT actions_status_check CHECK (status IN
    ('proposed', 'confirmed', 'executing', 'executed', 'needs_review', 'cancelled', 'expired', 'failed', 'undone',
     'superseded')) NOT VALID;
ALTER TABLE actions VALIDATE CONSTRAINT actions_status_check;
ALTER TABLE actions ADD COLUMN supersedes uuid, ADD COLUMN superseded_by uuid;
-- prior_requesters: on an edit, everyone who asked for an action it replaced (the chain's requesters, the first
-- proposal's included), set at insert only: the separation of duties counts them as requesters too, so an edit by
-- someone else never lets the proposal's requester approve their own HIGH action (SeparationOfDuties).
ALTER TABLE actions ADD COLUMN prior_requesters text[] NOT NULL DEFAULT '{}'
    CHECK (array_position(prior_requesters, NULL) IS NULL AND cardinality(prior_requesters) <= 64);
ALTER TABLE actions ADD CONSTRAINT actions_superseded_names_its_successor
    CHECK ((status = 'superseded') = (superseded_by IS NOT NULL)) NOT VALID;
ALTER TABLE actions VALIDATE CONSTRAINT actions_superseded_names_its_successor;
ALTER TABLE actions ADD CONSTRAINT actions_never_supersede_themselves CHECK (supersedes <> id);
CREATE UNIQUE INDEX actions_superseded_once ON actions (supersedes) WHERE supersedes IS NOT NULL;
GRANT SELECT (supersedes, superseded_by) ON actions TO ${readerRole};

-- A superseded action's idempotency key is retired, as a cancelled one's is (R__idempotency_keys_follow_actions.sql).
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_retired_because_check;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_retired_because_check
    CHECK (retired_because IN ('cancelled', 'expired', 'superseded'));
