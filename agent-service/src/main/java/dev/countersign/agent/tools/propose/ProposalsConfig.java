package dev.countersign.agent.tools.propose;

import java.time.Duration;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "countersign.proposals")
public interface ProposalsConfig {

    /**
     * How long a propose tool waits for the broker to acknowledge the event before it tells the model the proposal is
     * submitted with its outcome pending (never that it failed: the broker may have taken it).
     */
    @WithDefault("PT5S")
    @DurationMin(millis = 1)
    Duration publishTimeout();

    /**
     * How long the agent keeps re-sending an unacknowledged proposal (the same event, so the executor stages it at most
     * once). Longer than {@link #publishTimeout()}; shorter than a person's access token lives, because the executor
     * judges the token the proposal carries at the time the broker appends it.
     */
    @WithDefault("PT2M")
    @DurationMin(millis = 1)
    Duration deliveryDeadline();
}
