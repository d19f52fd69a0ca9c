package dev.countersign.contracts;

/** Names of the Kafka record headers the services agree on (the topics are in {@link Topics}). */
public final class KafkaHeaders {

    /**
     * Record header of {@link Topics#ACTIONS_PROPOSED} and {@link Topics#CONVERSATION_EVENTS}: the raw bearer token
     * (JWT) of the request that produced the event, which the executor verifies before it stages or appends anything
     * (evidence that the named user signed in recently; see docs/security/evidence.md). Never in the event body, never
     * logged, removed before a record is dead-lettered.
     */
    public static final String EVIDENCE = "countersign-evidence";
    /**
     * Record header of {@link Topics#ACTIONS_DECISIONS}: the approver's own executor-audience JWT. A decision without a
     * valid one counts as one unverified integration approver, whatever user id it names.
     */
    public static final String APPROVER = "countersign-approver";

    private KafkaHeaders() {
    }
}
