package dev.countersign.localstack;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import org.apache.kafka.clients.producer.ProducerRecord;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.KafkaHeaders;
import dev.countersign.contracts.Topics;

/**
 * The one way these tests publish as the agent does: every proposal (and conversation event) carries its requester's
 * agent-audience token in the evidence header, without which executor-service stages nothing.
 */
final class AgentEvidence {

    private AgentEvidence() {
    }

    /**
     * The agent token of {@code user} of {@code tenant}, valid for an hour (the executor accepts evidence up to an hour
     * old by default): mint one per user and test, not one per record.
     */
    static String of(LocalStack stack, String tenant, String user) {
        return stack.tokens().mint(tenant, user, Audiences.AGENT, Duration.ofHours(1));
    }

    /** The headers for {@code TopicRecords.send}. */
    static Map<String, String> header(String evidence) {
        return Map.of(KafkaHeaders.EVIDENCE, evidence);
    }

    /** A record of {@code topic} with {@code evidence} in its header. */
    static ProducerRecord<String, String> record(String topic, String key, String value, String evidence) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, value);
        record.headers().add(KafkaHeaders.EVIDENCE, evidence.getBytes(StandardCharsets.UTF_8));
        return record;
    }

    /** {@code proposal} as the agent publishes it: keyed by its action id, with {@code evidence}. */
    static ProducerRecord<String, String> proposal(ExpenseProposal proposal, String evidence) {
        return record(Topics.ACTIONS_PROPOSED, proposal.id().toString(), proposal.event(), evidence);
    }
}
