package dev.countersign.executor.outbox;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "countersign.outbox")
public interface OutboxConfig {

    /** How often the relay looks for rows nobody woke it for (another instance's, or left by a failed run). */
    @WithDefault("PT0.5S")
    Duration pollInterval();

    /** Rows published per relay transaction. */
    @WithDefault("200")
    int batchSize();
}
