package dev.countersign.executor.gate;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "countersign.actions")
public interface ActionsConfig {

    /** The longest a proposal may wait for a decision; a proposal may ask for less, never for more. */
    @WithDefault("PT15M")
    Duration maxTtl();

    /** How often undecided actions whose window has closed are expired and announced. */
    @WithDefault("PT5S")
    Duration sweepInterval();

    /** The most actions one sweep transaction expires. */
    @WithDefault("500")
    int sweepBatch();
}
