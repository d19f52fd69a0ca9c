package dev.countersign.agent.evidence;

import java.net.URI;
import java.time.Duration;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Where the agent gets its reader grants ({@link ReaderGrants}). */
@ConfigMapping(prefix = "countersign.reader-grants")
public interface ReaderGrantsConfig {

    /** executor-service's base URL as this service reaches it (POST {@code /api/reader-grants} there). */
    URI executorUrl();

    /** A grant this close to its end is renewed from the person's current token before a read uses it. */
    @WithDefault("PT30S")
    @DurationMin(seconds = 0)
    Duration renewBefore();

    /** How long a read waits for the executor to mint a grant. */
    @WithDefault("PT5S")
    @DurationMin(millis = 1)
    Duration timeout();
}
