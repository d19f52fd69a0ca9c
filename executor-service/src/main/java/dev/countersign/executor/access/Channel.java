package dev.countersign.executor.access;

import java.util.Locale;

/** How a decision reached the executor. */
public enum Channel {

    /** A bearer token for the executor (an API client, an integration acting for a person). */
    HTTP,
    /** The executor's own decision page, signed in with its browser session. */
    PAGE,
    /** The decisions topic, with the deciding person's own executor token (countersign-approver header). */
    TOPIC,
    /**
     * The person's second device (OpenID CIBA): an approval or a denial the identity provider answered to a request the
     * executor started for that person, action and parameters hash (docs/approvals.md).
     */
    CIBA;

    /**
     * Whether a decision through this channel answers a person who could be told what they may not read (HTTP, the
     * page); a topic or second-device decision answers nobody.
     */
    public boolean answersCaller() {
        return this == HTTP || this == PAGE;
    }

    public String tableName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
