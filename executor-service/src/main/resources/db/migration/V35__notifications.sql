-- People told that an action waits for them (issue 44, docs/approvals.md).
--
-- notification_requests: the actions whose people have not been worked out yet. Written in the transaction that
-- stored the action (R__notifications.sql: every action stored as proposed), so a request exists if and only if the
-- action was committed; NotificationPlanner works it out (who may decide, each one's channels) into notifications and
-- deletes it in one transaction.
CREATE TABLE notification_requests (
    tenant_id    text        NOT NULL,
    action_id    uuid        NOT NULL,
    purpose      text        NOT NULL CHECK (purpose IN ('waiting', 'reminder')),
    requested_at timestamptz NOT NULL DEFAULT statement_timestamp(),
    PRIMARY KEY (tenant_id, action_id, purpose)
);
CREATE INDEX notification_requests_due ON notification_requests (tenant_id, requested_at);
ALTER TABLE notification_requests ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON notification_requests
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
REVOKE ALL ON notification_requests FROM PUBLIC;
GRANT SELECT, INSERT, DELETE ON notification_requests TO ${executorRole};
-- The planner locks the requests it works out (FOR UPDATE, which needs an UPDATE privilege); it changes none.
GRANT UPDATE (requested_at) ON notification_requests TO ${executorRole};

-- notifications: one message to one person (or destination) about one action, for one purpose, through one channel.
-- The unique key is what makes it once per person and action: planning twice finds the row there. id is the
-- message's identity (the e-mail's Message-ID), which a resend repeats. state: pending until the send was recorded
-- (sent), refused (the destination is not allowed), failed (given up after its attempts) or dropped (when it was due,
-- its action no longer waited, or the person no longer may decide it or chose no such message); not_before is when a
-- sender may next claim it (first a short delay after staging, in which a decision makes it unneeded; then a claim
-- sets it a lease ahead, so a sender that died mid-send is followed by another).
CREATE TABLE notifications (
    id         uuid        PRIMARY KEY,
    tenant_id  text        NOT NULL,
    action_id  uuid        NOT NULL,
    recipient  text        NOT NULL CHECK (char_length(recipient) BETWEEN 1 AND 128 AND recipient !~ '[[:cntrl:]]'),
    channel    text        NOT NULL CHECK (channel IN ('email', 'webhook')),
    purpose    text        NOT NULL CHECK (purpose IN ('waiting', 'reminder')),
    address    text        NOT NULL CHECK (char_length(address) BETWEEN 3 AND 2048 AND address !~ '[[:cntrl:]]'),
    state      text        NOT NULL DEFAULT 'pending'
                           CHECK (state IN ('pending', 'sent', 'refused', 'failed', 'dropped')),
    attempts   integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    not_before timestamptz NOT NULL DEFAULT statement_timestamp(),
    sent_at    timestamptz,
    detail     text        CHECK (char_length(detail) <= 500),
    created_at timestamptz NOT NULL DEFAULT statement_timestamp(),
    UNIQUE (tenant_id, action_id, recipient, channel, purpose),
    CHECK ((state = 'sent') = (sent_at IS NOT NULL))
);
CREATE INDEX notifications_due ON notifications (not_before) WHERE state = 'pending';
ALTER TABLE notifications ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON notifications
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
REVOKE ALL ON notifications FROM PUBLIC;
GRANT SELECT, INSERT ON notifications TO ${executorRole};
-- What a sender changes; never whom or where a message goes.
GRANT UPDATE (state, attempts, not_before, sent_at, detail) ON notifications TO ${executorRole};
