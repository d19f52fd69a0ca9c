package dev.countersign.agent.turn;

import java.time.Duration;

import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The guards around calls to the model ({@link ModelCalls}); per instance of the agent. */
@ConfigMapping(prefix = "countersign.model")
public interface ModelCallsConfig {

    /** Model calls in flight at once; one more is refused at once (503 {@code upstream_unavailable}). */
    @WithDefault("64")
    @Min(1)
    int maxConcurrentCalls();

    Breaker breaker();

    /**
     * When calls to the model are paused: after {@link #failureRatio()} of the last {@link #requestVolume()} calls
     * failed (an error, an unreadable answer, the client's timeout), every call is refused at once for
     * {@link #delay()}; then one trial call decides whether to close again.
     */
    interface Breaker {

        @WithDefault("20")
        @Min(1)
        int requestVolume();

        @WithDefault("0.5")
        @DecimalMin(value = "0", inclusive = false)
        @DecimalMax("1")
        double failureRatio();

        @WithDefault("PT30S")
        @DurationMin(millis = 1)
        Duration delay();
    }
}
