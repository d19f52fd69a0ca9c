package dev.countersign.executor.evidence;

import java.nio.charset.StandardCharsets;

import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

import dev.countersign.contracts.KafkaHeaders;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordMetadata;

/**
 * What the consumers of the agent's topics call first: takes the evidence header off the incoming record (so no
 * dead-letter copy of the record, made by the connector from its headers, can carry the token), verifies it for the
 * event's tenant and user at the record's {@link RecordTime}, and counts rejections in
 * {@code countersign_evidence_rejected_total{consumer,reason}}.
 */
@ApplicationScoped
public class EvidenceGate {

    static final String REJECTED = "countersign.evidence.rejected";

    private final EvidenceVerifier verifier;
    private final MeterRegistry registry;

    public EvidenceGate(EvidenceVerifier verifier, MeterRegistry registry) {
        this.verifier = verifier;
        this.registry = registry;
    }

    /**
     * Removes the evidence header from the record's headers and returns its value (null when absent). Call it before
     * anything can fail: the connector's dead-letter handling copies the headers it finds.
     */
    public static String take(IncomingKafkaRecordMetadata<?, ?> metadata) {
        if (metadata == null || metadata.getHeaders() == null) {
            return null;
        }
        Headers headers = metadata.getHeaders();
        Header last = headers.lastHeader(KafkaHeaders.EVIDENCE);
        headers.remove(KafkaHeaders.EVIDENCE);
        return last == null || last.value() == null ? null : new String(last.value(), StandardCharsets.UTF_8);
    }

    public Uni<Evidence> check(String consumer, String token, String tenantId, String userId, RecordTime time) {
        return verifier.verify(token, tenantId, userId, time).invoke(evidence -> {
            if (evidence instanceof Evidence.Rejected rejected) {
                registry.counter(REJECTED, "consumer", consumer, "reason", rejected.reason()).increment();
            }
        });
    }
}
