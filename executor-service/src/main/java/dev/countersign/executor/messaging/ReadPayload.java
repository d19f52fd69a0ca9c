package dev.countersign.executor.messaging;

import java.util.UUID;
import java.util.function.Function;

import dev.countersign.contracts.json.Json;

/**
 * A record's payload read once, before its lane is chosen ({@link KeyedLanes}): the event, or what reading it threw (to
 * be handled inside the lane, where the record can be refused).
 */
public record ReadPayload<T>(T event, Throwable failure) {

    public static <T> ReadPayload<T> of(String payload, Class<T> type) {
        try {
            return new ReadPayload<>(Json.read(payload, type), null);
        } catch (Throwable e) {
            // Anything, as Mutiny's deferred caught it before: nothing read here may escape the channel's method.
            return new ReadPayload<>(null, e);
        }
    }

    /**
     * The event's action id, so that one action's records share a lane whatever key the producer gave them (a
     * compromised agent or a careless integration chooses its keys); the record key if the payload names none.
     */
    public String laneKey(Function<T, UUID> actionId, String recordKey) {
        UUID id = event == null ? null : actionId.apply(event);
        return id == null ? recordKey : id.toString();
    }
}
