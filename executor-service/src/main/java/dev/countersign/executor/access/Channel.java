package dev.countersign.executor.access;

import java.util.Locale;

/** How a decision reached the executor. */
public enum Channel {

    /** A bearer token for the executor (an API client, an integration acting for a person). */
    HTTP,
    /** The executor's own decision page, signed in with its browser session. */
    PAGE,
    /** The decisions topic, with the deciding person's own executor token (countersign-approver header). */
    TOPIC;

    public String tableName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
