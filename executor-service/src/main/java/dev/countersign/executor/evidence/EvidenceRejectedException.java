package dev.countersign.executor.evidence;

/**
 * Fails a record whose evidence does not hold: the connector then parks it on the topic's dead-letter topic with this
 * message (a stable reason code and the event id, nothing of the token) in the {@code dead-letter-reason} header.
 */
public class EvidenceRejectedException extends RuntimeException {

    public EvidenceRejectedException(String reason, Object eventId) {
        super("rejected without valid evidence (%s): event %s".formatted(reason, eventId), null, false, false);
    }
}
