package dev.countersign.agent.turn;

import java.time.Duration;

import jakarta.validation.constraints.Min;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The budget of one turn. */
@ConfigMapping(prefix = "countersign.turn")
public interface TurnConfig {

    /**
     * Wall clock from the start of the turn to the last model answer; a model call is abandoned when it runs out (see
     * ActTurn for what a request can add to it).
     */
    @WithDefault("PT40S")
    @DurationMin(seconds = 1)
    Duration wallClock();

    /** Model responses that call tools; one more that asks for tools ends the turn. */
    @WithDefault("8")
    @Min(1)
    int maxToolRounds();

    /** Tool calls answered per model response; the rest get a "not run" result. */
    @WithDefault("10")
    @Min(1)
    int maxCallsPerRound();
}
