package dev.countersign.executor.kinds.ticket.create;

import java.time.Duration;
import java.util.Optional;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The ticket system {@code ticket.create} posts to. */
@ConfigMapping(prefix = "countersign.external.ticket")
public interface TicketConfig {

    /** {@code POST} endpoint of the ticket system; {@code ticket.create} is not supported without it. */
    Optional<String> url();

    @WithDefault("PT10S")
    @DurationMin(millis = 1)
    Duration timeout();

    /** A bearer token for the ticket system, sent as {@code Authorization}; never logged. */
    Optional<String> apiToken();

    /** Calls per execution when the answer does not come (the vendor honours the idempotency key). */
    @WithDefault("3")
    @Min(1)
    @Max(10)
    int attempts();
}
