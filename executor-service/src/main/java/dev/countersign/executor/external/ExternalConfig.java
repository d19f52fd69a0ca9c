package dev.countersign.executor.external;

import java.time.Duration;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** External writes: where they go, how long a call may take, and when an unrecorded call is looked at again. */
@ConfigMapping(prefix = "countersign.external")
public interface ExternalConfig {

    Mail mail();

    Ticket ticket();

    /**
     * An {@code executing} action claimed longer ago than this was not recorded by whoever claimed it (crashed or cut
     * off): the recovery looks at it. Must exceed the longest call (timeout x attempts) by a margin, or a slow call
     * still in flight would be judged lost.
     */
    @WithDefault("PT2M")
    Duration staleAfter();

    /**
     * How often the recovery looks for stale {@code executing} actions (also a second after start). Read by the
     * schedule of {@code ExternalRecovery} (quarkus-scheduler).
     */
    @WithDefault("PT30S")
    Duration recoveryInterval();

    interface Mail {

        /** Whether {@code mail.send} can run here (an SMTP server is configured: {@code quarkus.mailer.*}). */
        @WithDefault("false")
        boolean enabled();

        @WithDefault("countersign@localhost")
        String from();

        @WithDefault("PT10S")
        Duration timeout();
    }

    interface Ticket {

        /** {@code POST} endpoint of the ticket system; {@code ticket.create} is not supported without it. */
        Optional<String> url();

        @WithDefault("PT10S")
        Duration timeout();

        /** A bearer token for the ticket system, sent as {@code Authorization}; never logged. */
        Optional<String> apiToken();

        /** Calls per execution when the answer does not come (the vendor honours the idempotency key). */
        @WithDefault("3")
        int attempts();
    }
}
