package dev.countersign.agent.turn;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** How many chat turns one person may start ({@link TurnLimits}). */
@ConfigMapping(prefix = "countersign.limits")
public interface TurnLimitsConfig {

    /** Turns one person (a user of a tenant) may start within any {@link #turnsWindow()}, per instance. */
    @WithDefault("20")
    int turnsPerPerson();

    @WithDefault("PT1M")
    Duration turnsWindow();

    /** Turns one person may have running at once, per instance; one more is refused until one has answered. */
    @WithDefault("2")
    int turnsInFlightPerPerson();
}
