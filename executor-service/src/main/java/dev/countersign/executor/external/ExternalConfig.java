package dev.countersign.executor.external;

import java.time.Duration;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * When an unrecorded external call is looked at again. Where each external kind's calls go, and how long one may take,
 * is the kind's own configuration (in its folder, under {@code countersign.external.<vendor>}).
 */
@ConfigMapping(prefix = "countersign.external")
public interface ExternalConfig {

    /**
     * An {@code executing} action claimed longer ago than this was not recorded by whoever claimed it (crashed or cut
     * off): the recovery looks at it. Must exceed the longest call (each kind's timeout x attempts, with the back-off
     * between) by a margin, or a slow call still in flight would be judged lost.
     */
    @WithDefault("PT2M")
    @DurationMin(seconds = 1)
    Duration staleAfter();

    /**
     * Whether a webhook notification may reach a private address (loopback, link-local, RFC 1918 and the like): off, so
     * that a tenant's allow-list cannot point the executor at the operator's own network; on only where the receivers
     * are local (the local stack, the tests).
     */
    @WithDefault("false")
    boolean webhookPrivateAddresses();

    /**
     * How often the recovery looks for stale {@code executing} actions (also a second after start). Read by the
     * schedule of {@code ExternalRecovery} (quarkus-scheduler).
     */
    @WithDefault("PT30S")
    @DurationMin(millis = 100)
    Duration recoveryInterval();
}
