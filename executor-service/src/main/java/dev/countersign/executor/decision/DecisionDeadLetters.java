package dev.countersign.executor.decision;

import java.time.Duration;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.json.Json;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;

/**
 * Parks a decision that can never be processed on {@code countersign.actions.decisions.dlq}, with the reason in the
 * {@code dead-letter-reason} header and its confirm token replaced by {@value #REDACTED}: a raw token must not outlive
 * the short-lived decisions topic in another topic. Publishing is retried until the broker takes it, so a poison record
 * is parked, never dropped, and never blocks the records behind it for longer than a broker outage.
 */
@ApplicationScoped
public class DecisionDeadLetters {

    static final String REDACTED = "<redacted>";
    private static final Pattern TOKEN_MEMBER = Pattern.compile("\"token\"\\s*:\\s*\"(?:[^\"\\\\]|\\\\.)*\"");

    private final MutinyEmitter<String> emitter;

    public DecisionDeadLetters(@Channel("decisions-dead-letters") MutinyEmitter<String> emitter) {
        this.emitter = emitter;
    }

    public Uni<Void> park(String key, String payload, String reason) {
        var metadata = OutgoingKafkaRecordMetadata.<String>builder()
                .withKey(key)
                .withHeaders(new org.apache.kafka.common.header.internals.RecordHeaders()
                        .add("dead-letter-reason", reason.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .build();
        return emitter.sendMessage(Message.of(redact(payload)).addMetadata(metadata))
                .onFailure().retry().withBackOff(Duration.ofMillis(200), Duration.ofSeconds(10)).indefinitely();
    }

    /** The payload without its token: by JSON when it parses, by pattern when it does not; never null. */
    static String redact(String payload) {
        if (payload == null) {
            // A tombstone (a record without a value) is parked with an empty value; its reason header says why.
            return "";
        }
        try {
            var tree = Json.mapper().readTree(payload);
            if (tree instanceof ObjectNode object && object.has("token")) {
                object.put("token", REDACTED);
                return Json.write(object);
            }
            if (tree != null && tree.isObject()) {
                return payload;
            }
        } catch (java.io.IOException unreadable) {
            // fall through to the pattern
        }
        return TOKEN_MEMBER.matcher(payload).replaceAll("\"token\":\"" + REDACTED + "\"");
    }
}
