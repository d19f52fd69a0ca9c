-- The people of each tenant as the executor last saw them (issue 44, docs/approvals.md): who may be told that an
-- action waits for them, before any of them signs in again. Kept from sign-ins: a person's verified bearer token on
-- the executor's API or decision page writes their groups, username and verified e-mail address here (MemberSightings,
-- at most once in ten minutes per instance unless they changed), unless a newer token of theirs was written already
-- (token_issued_at: a token issued earlier never overwrites what a later one said). The decision itself never reads
-- this table: it checks the live token. An entry is as fresh as its person's last sign-in (seen_at): a person removed
-- from the approver group at the identity provider stays one here until they sign in again, and notifications skip an
-- entry older than countersign.members.max-age. A person who never signed in at the executor is not here.
--
-- notify_email, notify_webhook: the person's own choice of channels (PUT /api/me/notifications); a sign-in never
-- changes them.
CREATE TABLE tenant_members (
    tenant_id      text        NOT NULL,
    user_id        text        NOT NULL CHECK (char_length(user_id) BETWEEN 1 AND 128 AND user_id !~ '[[:cntrl:]]'),
    username       text        CHECK (char_length(username) BETWEEN 1 AND 256 AND username !~ '[[:cntrl:]]'),
    email          text        CHECK (char_length(email) BETWEEN 3 AND 254
                                      AND email ~ '^[^@[:space:][:cntrl:]]+@[^@[:space:][:cntrl:]]+$'),
    approver       boolean     NOT NULL,
    admin          boolean     NOT NULL,
    seen_at        timestamptz NOT NULL DEFAULT statement_timestamp(),
    token_issued_at timestamptz NOT NULL DEFAULT '-infinity',
    notify_email   boolean     NOT NULL DEFAULT true,
    notify_webhook boolean     NOT NULL DEFAULT true,
    PRIMARY KEY (tenant_id, user_id)
);
ALTER TABLE tenant_members ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON tenant_members
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
REVOKE ALL ON tenant_members FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE ON tenant_members TO ${executorRole};
