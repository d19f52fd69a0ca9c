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

    private Topics() {
    }
}
