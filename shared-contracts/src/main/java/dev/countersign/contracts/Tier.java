package dev.countersign.contracts;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Blast radius of an action, decided by the executor from the catalogue; never taken from a proposal. */
public enum Tier {

    READ, LOW, MEDIUM, HIGH;

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static Tier fromWire(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}
