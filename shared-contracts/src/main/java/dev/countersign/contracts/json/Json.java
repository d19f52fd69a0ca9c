package dev.countersign.contracts.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The mapper for events on the wire. Unknown members are ignored so a newer producer does not break an older consumer
 * (schemaVersion says when a change is not compatible); a missing required member fails the record's own checks.
 */
public final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE);

    private Json() {
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("Cannot serialise " + value.getClass().getSimpleName(), e);
        }
    }

    /**
     * Parses an event; throws {@link MalformedEventException} on unreadable input, and on the JSON literal {@code null}
     * (which the mapper reads as a null event, and no caller can use).
     */
    public static <T> T read(String json, Class<T> type) {
        try {
            T value = MAPPER.readValue(json, type);
            if (value == null) {
                throw new MalformedEventException(type.getSimpleName() + " is unreadable: the value is JSON null",
                        null);
            }
            return value;
        } catch (JsonProcessingException e) {
            throw new MalformedEventException(type.getSimpleName() + " is unreadable: " + e.getOriginalMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new MalformedEventException(type.getSimpleName() + " is invalid: " + e.getMessage(), e);
        }
    }

    public static JsonNode tree(Object value) {
        return MAPPER.valueToTree(value);
    }
}
