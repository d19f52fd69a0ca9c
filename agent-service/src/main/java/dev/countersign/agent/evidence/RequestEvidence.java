package dev.countersign.agent.evidence;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.header.internals.RecordHeaders;

import dev.countersign.contracts.KafkaHeaders;

/**
 * The signed-in person's own bearer token (agent audience) of the request a turn serves, forwarded with every proposal
 * and conversation event the turn publishes ({@link KafkaHeaders#EVIDENCE}), so executor-service can check that this
 * person of this tenant signed in recently: the agent cannot mint it.
 * <p>
 * It lives in memory for the request only and in the record header of the two agent topics (kept as long as their
 * retention); it is never logged ({@link #toString()} hides it) and never put in an event body. Limit: it proves a
 * recent sign-in, not this particular request; see docs/security/evidence.md.
 */
public final class RequestEvidence {

    /** No person's request behind it (a scheduled job): the executor rejects what it publishes. */
    public static final RequestEvidence NONE = new RequestEvidence(null);

    private final String token;

    private RequestEvidence(String token) {
        this.token = token;
    }

    public static RequestEvidence of(String rawToken) {
        return rawToken == null || rawToken.isBlank() ? NONE : new RequestEvidence(rawToken);
    }

    /** Record headers carrying the token (none for {@link #NONE}). */
    public RecordHeaders headers() {
        RecordHeaders headers = new RecordHeaders();
        if (token != null) {
            headers.add(KafkaHeaders.EVIDENCE, token.getBytes(StandardCharsets.UTF_8));
        }
        return headers;
    }

    @Override
    public String toString() {
        return token == null ? "RequestEvidence[none]" : "RequestEvidence[<redacted>]";
    }
}
