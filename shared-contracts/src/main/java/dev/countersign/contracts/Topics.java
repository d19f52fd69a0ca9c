package dev.countersign.contracts;

/**
 * Kafka topic names. Every action event is keyed by its action id, so all events of one action land on one partition in
 * order; the conversation ledger is keyed by the conversation id.
 */
public final class Topics {

    /** agent-service to executor-service: {@code ActionProposed}. */
    public static final String ACTIONS_PROPOSED = "countersign.actions.proposed";
    /** integrations to executor-service: confirm and cancel decisions. */
    public static final String ACTIONS_DECISIONS = "countersign.actions.decisions";
    /** executor-service to everyone: staged, rejected, executed and later outcomes. */
    public static final String ACTIONS_OUTCOMES = "countersign.actions.outcomes";
    /** agent-service to executor-service: the conversation ledger. */
    public static final String CONVERSATION_EVENTS = "countersign.conversation.events";
    /** Poison proposals (unreadable JSON) are parked here by the executor's consumer. */
    public static final String ACTIONS_PROPOSED_DEAD_LETTER = ACTIONS_PROPOSED + ".dlq";
    /** Unreadable or invalid conversation events, parked by the executor's consumer. */
    public static final String CONVERSATION_EVENTS_DEAD_LETTER = CONVERSATION_EVENTS + ".dlq";
    /** Unreadable or always-failing decisions, with the reason in the record's headers. */
    public static final String ACTIONS_DECISIONS_DEAD_LETTER = ACTIONS_DECISIONS + ".dlq";

    /**
     * Record header of {@link #ACTIONS_PROPOSED} and {@link #CONVERSATION_EVENTS}: the raw bearer token (JWT) of the
     * request that produced the event, which the executor verifies before it stages or appends anything (evidence that
     * the named user signed in recently; see docs/security/evidence.md). Never in the event body, never logged, removed
     * before a record is dead-lettered.
     */
    public static final String EVIDENCE_HEADER = "countersign-evidence";
    /**
     * Record header of {@link #ACTIONS_DECISIONS}: the approver's own executor-audience JWT. A decision without a valid
     * one counts as one unverified integration approver, whatever user id it names.
     */
    public static final String APPROVER_HEADER = "countersign-approver";

    private Topics() {
    }
}
