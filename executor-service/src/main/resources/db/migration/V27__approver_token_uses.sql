-- Approver tokens on the decisions topic are single use (issue 39, part 2): the first decision event that carries one
-- binds it (its jti) to that event's action and parameters hash; any other event carrying it is refused. Written in the
-- decision's own transaction (DecisionService), so a decision rolled back leaves its token unused. A row may go once
-- its token has expired, when no verifier accepts it any more (approver_token_uses_prune, R__retention.sql).
CREATE TABLE approver_token_uses (
    token_id    text        PRIMARY KEY CHECK (char_length(token_id) BETWEEN 1 AND 256),
    tenant_id   text        NOT NULL,
    action_id   uuid        NOT NULL,
    event_id    uuid        NOT NULL,
    params_hash text,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz NOT NULL DEFAULT statement_timestamp()
);
ALTER TABLE approver_token_uses ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON approver_token_uses
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
REVOKE ALL ON approver_token_uses FROM PUBLIC;
GRANT SELECT, INSERT ON approver_token_uses TO ${executorRole};
