package dev.countersign.contracts.api;

import java.time.Instant;
import java.util.Locale;

import jakarta.validation.constraints.NotNull;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The tenant's kill switch for agent writes: {@code enabled}; {@code staged_only} (every proposal waits for a person,
 * nothing auto-applies); {@code disabled} (new proposals are rejected with a reason the model can relay).
 */
public record AgentWritesPolicy(
        @NotNull(message = "must be \"enabled\", \"staged_only\" or \"disabled\"") Mode mode, String updatedBy,
        Instant updatedAt) {

    public enum Mode {

        ENABLED, STAGED_ONLY, DISABLED;

        @JsonValue
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        @JsonCreator
        public static Mode fromWire(String value) {
            return valueOf(value.toUpperCase(Locale.ROOT));
        }
    }
}
