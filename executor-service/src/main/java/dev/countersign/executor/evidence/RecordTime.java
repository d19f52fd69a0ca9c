package dev.countersign.executor.evidence;

import java.time.Instant;

import org.apache.kafka.common.record.TimestampType;

import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordMetadata;

/**
 * The time evidence is judged at. On a topic with {@code message.timestamp.type=LogAppendTime} the broker stamps each
 * record when it appends it, which no producer chooses: evidence valid then stays valid however long the record queued
 * (an executor outage). On a topic with {@code CreateTime} the producer (perhaps a compromised agent) chooses the
 * timestamp, so it is worth nothing and the time of consumption is used: then a proposal that queued past its
 * evidence's expiry is rejected.
 */
public record RecordTime(Instant reference, boolean appendTime, Instant now) {

    public static RecordTime of(IncomingKafkaRecordMetadata<?, ?> metadata) {
        Instant now = Instant.now();
        return metadata != null && metadata.getTimestampType() == TimestampType.LOG_APPEND_TIME
                && metadata.getTimestamp() != null
                        ? new RecordTime(metadata.getTimestamp(), true, now)
                        : new RecordTime(now, false, now);
    }
}
