-- Second-device approvals (issue 45, docs/approvals.md): the executor asks the identity provider, through OpenID CIBA,
-- to have one person approve one action on a device of theirs, and polls for the answer.
--
-- tenant_members.notify_second_device: the person's own choice (PUT /api/me/notifications) to be asked on their
-- second device, for HIGH actions they may decide. Off unless they turn it on. A sign-in never changes it.
ALTER TABLE tenant_members ADD COLUMN notify_second_device boolean NOT NULL DEFAULT false;

-- tenant_policies.second_device_kinds: the kinds whose proposals below HIGH also go to second devices (every HIGH one
-- does); none by default. Audited with the other policies (R__tenant_policy_history.sql).
ALTER TABLE tenant_policies
    ADD COLUMN second_device_kinds text[]
        CHECK (array_position(second_device_kinds, NULL) IS NULL AND cardinality(second_device_kinds) <= 64);
ALTER TABLE tenant_policy_history ADD COLUMN second_device_kinds text[];

-- A second-device request is planned and claimed like any notification (NotificationPlanner, NotificationSender): its
-- address is the person's login hint (their username at the identity provider).
-- A username may be shorter than an address or a URL: only a second-device notification's address may be.
ALTER TABLE notifications DROP CONSTRAINT notifications_channel_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_channel_check
    CHECK (channel IN ('email', 'webhook', 'second_device'));
ALTER TABLE notifications DROP CONSTRAINT notifications_address_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_address_check
    CHECK (char_length(address) BETWEEN CASE WHEN channel = 'second_device' THEN 1 ELSE 3 END AND 2048
           AND address !~ '[[:cntrl:]]');

-- second_device_requests: one backchannel authentication request the identity provider accepted, bound here (never in
-- what the device or the token says) to the action, the parameters hash it was asked about and the person it was sent
-- to. One per notification (a resend after a crash records nothing new). auth_req_id is the provider's handle, which
-- with the client's secret fetches the approval's token: readable by the executor's role only. state: pending until
-- polling ended it: approved (a token came and was put to the decision rule; outcome says what the decision did),
-- denied (the person said no: the action was cancelled by them, or outcome says why not), expired (the provider's
-- request timed out; the action is left as it was) or ended (the provider no longer knows the request, or its answer
-- could not be used; outcome says why). next_poll_at: when any instance may poll it next (a poll claims it a lease
-- ahead, so a poller that died is followed by another).
CREATE TABLE second_device_requests (
    notification_id uuid        PRIMARY KEY,
    tenant_id       text        NOT NULL,
    action_id       uuid        NOT NULL REFERENCES actions (id),
    user_id         text        NOT NULL CHECK (char_length(user_id) BETWEEN 1 AND 128),
    params_hash     text        NOT NULL,
    binding_code    text        NOT NULL CHECK (binding_code ~ '^[A-Z0-9-]{1,50}$'),
    auth_req_id     text        NOT NULL CHECK (char_length(auth_req_id) BETWEEN 1 AND 8192),
    state           text        NOT NULL DEFAULT 'pending'
                                CHECK (state IN ('pending', 'approved', 'denied', 'expired', 'ended')),
    poll_interval   integer     NOT NULL CHECK (poll_interval BETWEEN 1 AND 60),
    next_poll_at    timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    answered_at     timestamptz,
    outcome         text        CHECK (char_length(outcome) <= 500),
    created_at      timestamptz NOT NULL DEFAULT statement_timestamp(),
    CHECK ((state = 'pending') = (answered_at IS NULL))
);
-- One row per provider request: a request's answer can be acted on for one action only.
CREATE UNIQUE INDEX second_device_requests_auth_req ON second_device_requests (md5(auth_req_id));
CREATE INDEX second_device_requests_due ON second_device_requests (next_poll_at) WHERE state = 'pending';
CREATE INDEX second_device_requests_person ON second_device_requests (tenant_id, user_id) WHERE state = 'pending';
CREATE INDEX second_device_requests_action ON second_device_requests (action_id);
ALTER TABLE second_device_requests ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON second_device_requests
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
REVOKE ALL ON second_device_requests FROM PUBLIC;
GRANT SELECT, INSERT ON second_device_requests TO ${executorRole};
-- What polling changes; never which action, hash, person or provider request a row is about.
GRANT UPDATE (state, poll_interval, next_poll_at, answered_at, outcome) ON second_device_requests TO ${executorRole};
