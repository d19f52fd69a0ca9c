package dev.countersign.agent.turn;

import java.time.Duration;

import jakarta.validation.constraints.Min;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** How many chat turns one person may start ({@link TurnLimits}). */
@ConfigMapping(prefix = "countersign.limits")
public interface TurnLimitsConfig {

    /** Turns one person (a user of a tenant) may start within any {@link #turnsWindow()}, per instance. */
    @WithDefault("20")
    @Min(1)
    int turnsPerPerson();

    @WithDefault("PT1M")
    @DurationMin(seconds = 1)
    Duration turnsWindow();

    /**
     * MCP tool calls one MCP client (its {@code azp}, whoever signed in with it) may make within any
     * {@link #turnsWindow()}, per instance: a client many people use, or one gone wrong, is held to this beside each
     * person's own limit.
     */
    @WithDefault("120")
    @Min(1)
    int callsPerClient();

    /** Turns one person may have running at once, per instance; one more is refused until one has answered. */
    @WithDefault("2")
    @Min(1)
    int turnsInFlightPerPerson();
}
