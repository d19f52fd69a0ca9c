package dev.countersign.contracts.api;

import java.util.Locale;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * An administrator's finding about an external action whose outcome was unknown ({@code needs_review}).
 *
 * @param note
 *            what was checked at the vendor, kept in the action's result
 */
public record ResolveRequest(@NotNull(message = "must be \"executed\" or \"failed\"") Outcome outcome,
        @NotBlank(message = "must say what was checked at the vendor") @Size(max = ResolveRequest.MAX_NOTE, message = "must be at most {max} characters") String note) {

    public static final int MAX_NOTE = 500;

    public enum Outcome {

        EXECUTED, FAILED;

        @JsonValue
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        @JsonCreator
        public static Outcome fromWire(String value) {
            return valueOf(value.toUpperCase(Locale.ROOT));
        }
    }
}
