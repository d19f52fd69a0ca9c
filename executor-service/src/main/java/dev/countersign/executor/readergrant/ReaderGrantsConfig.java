package dev.countersign.executor.readergrant;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** How long a reader grant may live ({@link ReaderGrantResource}). */
@ConfigMapping(prefix = "countersign.reader-grants")
public interface ReaderGrantsConfig {

    /**
     * A grant ends when the token it was minted from expires, and at the latest this long after it was minted; the
     * agent then asks again with the person's current token. The database refuses more than a day.
     */
    @WithDefault("PT15M")
    Duration maxLifetime();
}
