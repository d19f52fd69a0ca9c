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
    /**
     * Every per-tenant topic begins so; an integration of one tenant is granted this prefix plus its tenant and a dot.
     */
    public static final String TENANT_PREFIX = "countersign.tenant.";
    /** Tenant ids a topic name can carry: Kafka allows letters, digits, '.', '_' and '-' (up to 249 characters). */
    public static final java.util.regex.Pattern TOPIC_SAFE_TENANT = java.util.regex.Pattern
            .compile("[A-Za-z0-9_-]{1,200}");

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

    /**
     * executor-service to one tenant's integrations: a copy of each of that tenant's outcomes, for tenants the
     * deployment lists (docs/security/authorization.md, section 3). {@code tenantId} must be
     * {@link #TOPIC_SAFE_TENANT}.
     */
    public static String tenantOutcomes(String tenantId) {
        if (!TOPIC_SAFE_TENANT.matcher(tenantId).matches()) {
            throw new IllegalArgumentException("a tenant id in a topic name is 1 to 200 of A-Z, a-z, 0-9, _ and -");
        }
        return TENANT_PREFIX + tenantId + ".outcomes";
    }
}
