-- Proposals through an MCP client (issue 43, docs/mcp.md).
--
-- actions.mcp_client: the client a person proposed through, its OAuth client id as the identity provider named it in
-- the exchanged evidence (act.client_id); NULL for the built-in chat and for integrations. Set at insert, never
-- changed (actions_guard). Countersign cannot see what entered that agent's context, so such a proposal is marked
-- clean only for a kind its tenant opted in (R__actions_mcp_marks.sql), and nothing not marked clean is applied on
-- arrival (actions_decision_marks_guard).
ALTER TABLE actions
    ADD COLUMN mcp_client text
        CHECK (char_length(mcp_client) BETWEEN 1 AND 128 AND mcp_client !~ '[[:cntrl:]]');
GRANT SELECT (mcp_client) ON actions TO ${readerRole};

-- tenant_policies.mcp_auto_apply_kinds: the kinds whose MCP proposals may apply on arrival (tier rules and budget as
-- for the chat's); NULL or empty: none. Raising it is a loosening change (two administrators, PolicyChanges). Audited
-- with the other policies (R__tenant_policy_history.sql).
ALTER TABLE tenant_policies
    ADD COLUMN mcp_auto_apply_kinds text[]
        CHECK (array_position(mcp_auto_apply_kinds, NULL) IS NULL AND cardinality(mcp_auto_apply_kinds) <= 64);
ALTER TABLE tenant_policy_history ADD COLUMN mcp_auto_apply_kinds text[];
