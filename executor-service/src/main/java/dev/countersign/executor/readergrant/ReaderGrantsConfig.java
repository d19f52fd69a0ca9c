package dev.countersign.executor.readergrant;

import java.time.Duration;

import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** How long a reader grant may live ({@link ReaderGrantResource}). */
@ConfigMapping(prefix = "countersign.reader-grants")
public interface ReaderGrantsConfig {

    /**
     * A grant ends when the token it was minted from expires, and at the latest this long after it was minted; the
     * agent then asks again with the person's current token. At least 5 s ({@link ReaderGrantResource#SHORTEST}: a
     * shorter grant is not worth minting); at most a day, which the database refuses beyond.
     */
    @WithDefault("PT15M")
    @DurationMin(seconds = 5)
    @DurationMax(days = 1)
    Duration maxLifetime();
}
