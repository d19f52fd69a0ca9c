package dev.countersign.devsupport.testing.fuzz;

import java.util.Map;
import java.util.UUID;

/**
 * One generated Kafka record.
 *
 * @param key
 *            unique within the run: how the test finds the record again on a dead-letter topic
 * @param value
 *            null sends a tombstone
 * @param headers
 *            header name to value; a null value sends the header with no bytes
 * @param eventId
 *            the {@code eventId} the value names, when it is a UUID a consumer could read (null otherwise): how the
 *            test finds the record again in {@code processed_events}
 * @param kind
 *            which generator made the value, and which defect it carries
 */
public record RecordInput(int index, String topic, String key, String value, Map<String, String> headers,
        UUID eventId, String kind) {

    /** What a failure message shows: enough to recognise the record, never 200 KB of it. */
    public String describe() {
        String text = value == null
                ? "(tombstone)"
                : value.length() > 300
                        ? value.substring(0, 300) + "... (" + value.length() + " chars)"
                        : value;
        return "#%d %s key=%s headers=%s value[%s]=%s".formatted(index, topic, key, headers.keySet(), kind, text);
    }
}
