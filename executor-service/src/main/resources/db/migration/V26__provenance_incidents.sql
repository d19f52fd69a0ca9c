-- The incident switch's record (issue 39, part 4): each time an operator declared that, from a given time, the clean
-- marks an agent stamped on its proposals are not to be believed (a compromised or steered agent), for one tenant or
-- every tenant (tenant_id null). Written only by distrust_clean_marks (R__provenance_incident.sql), as the owner;
-- append-only: the executor may read its tenant's declarations (one for every tenant names none: the owner's to
-- read), no role but the owner writes it.
CREATE TABLE provenance_incidents (
    id             bigserial PRIMARY KEY,
    tenant_id      text,
    since          timestamptz NOT NULL,
    reason         text        NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
    actions_marked integer     NOT NULL,
    declared_by    text        NOT NULL DEFAULT session_user,
    declared_at    timestamptz NOT NULL DEFAULT statement_timestamp()
);
ALTER TABLE provenance_incidents ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON provenance_incidents
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
REVOKE ALL ON provenance_incidents FROM PUBLIC;
GRANT SELECT ON provenance_incidents TO ${executorRole};
