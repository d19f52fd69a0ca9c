package dev.countersign.contracts;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The states of a staged action. The legal moves between them are enforced by executor-service (and by a trigger in its
 * database); this enum only names them.
 */
public enum ActionStatus {

    PROPOSED, CONFIRMED, EXECUTED, CANCELLED, EXPIRED, FAILED, UNDONE,
    /** An external call (e-mail, ticket) was claimed and may be in flight; its outcome is not recorded yet. */
    EXECUTING,
    /** Whether an external call reached the vendor is unknown; a person checks and resolves it. */
    NEEDS_REVIEW,
    /** A person edited it before approving: a new action replaced it, and it never runs. */
    SUPERSEDED;

    /** The lower-case name used in JSON, SQL and URLs. */
    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static ActionStatus fromWire(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }

    public boolean isTerminal() {
        return this == EXECUTED || this == CANCELLED || this == EXPIRED || this == FAILED || this == UNDONE
                || this == SUPERSEDED;
    }
}
