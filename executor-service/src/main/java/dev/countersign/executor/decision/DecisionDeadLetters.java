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
 * is parked, never dropped, and never blocks the records behind it for longer than a broker outage. A payload the
 * broker refuses for good (larger than its record limit once the reason is added) is parked without its value, the
 * reason saying so. Limit: a dead-letter topic that does not exist, on a broker that does not create topics, holds the
 * partition (retried, logged by the client) until an operator creates it, like an outage.
 */
@ApplicationScoped
public class DecisionDeadLetters {

    static final String REDACTED = "<redacted>";
    /**
     * A {@code "token"} member up to its closing quote or the end of an unterminated text. Possessive quantifiers: the
     * plain form recursed per character and overflowed the stack on a 5,000-character token, which stopped the
     * consumer.
     */
    private static final Pattern TOKEN_MEMBER = Pattern
            .compile("\"token\"\\s*:\\s*\"(?:[^\"\\\\]++|\\\\.)*+(?:\"|\\z)");

    private final MutinyEmitter<String> emitter;

    public DecisionDeadLetters(@Channel("decisions-dead-letters") MutinyEmitter<String> emitter) {
        this.emitter = emitter;
    }

    public Uni<Void> park(String key, String payload, String reason) {
        return send(key, redact(payload), reason)
                .onFailure(DecisionDeadLetters::refusedForGood)
                .recoverWithUni(refused -> send(key, "", reason + "; value not kept: the broker refused it ("
                        + refused.getClass().getSimpleName() + ")"))
                .onFailure().retry().withBackOff(Duration.ofMillis(200), Duration.ofSeconds(10)).indefinitely();
    }

    private Uni<Void> send(String key, String value, String reason) {
        var metadata = OutgoingKafkaRecordMetadata.<String>builder()
                .withKey(key)
                .withHeaders(new org.apache.kafka.common.header.internals.RecordHeaders()
                        .add("dead-letter-reason", reason.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .build();
        return emitter.sendMessage(Message.of(value).addMetadata(metadata));
    }

    /** A failure no retry can cure: the record is too large for the broker or the producer. */
    static boolean refusedForGood(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof org.apache.kafka.common.errors.RecordTooLargeException
                    || cause instanceof org.apache.kafka.common.errors.RecordBatchTooLargeException) {
                return true;
            }
        }
        return false;
    }

    /**
     * The payload without its token: by JSON when it parses, by pattern when it does not; never null, never throws (a
     * value that cannot be redacted is parked empty, so no token leaks and the parking itself cannot fail).
     */
    static String redact(String payload) {
        try {
            return redactOrThrow(payload);
        } catch (RuntimeException | StackOverflowError unredactable) {
            return "";
        }
    }

    private static String redactOrThrow(String payload) {
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
