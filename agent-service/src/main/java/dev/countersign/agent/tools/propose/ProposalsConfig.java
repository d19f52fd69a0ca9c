package dev.countersign.agent.tools.propose;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "countersign.proposals")
public interface ProposalsConfig {

    /** How long a propose tool waits for the broker to acknowledge the event before it reports failure. */
    @WithDefault("PT5S")
    Duration publishTimeout();
}
