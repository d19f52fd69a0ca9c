package dev.countersign.executor.notification;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Telling people that an action waits for them (docs/approvals.md). */
@ConfigMapping(prefix = "countersign.notifications")
public interface NotificationsConfig {

    /**
     * Whether the people who may decide are e-mailed (through the SMTP server of {@code quarkus.mailer}); needs
     * {@link #decisionPageUrl()}.
     */
    @WithDefault("false")
    boolean email();

    /**
     * Whether the people who may decide are told by webhook, at the URL each named, when its origin is on the tenant's
     * allow-list; needs {@link #decisionPageUrl()}.
     */
    @WithDefault("false")
    boolean webhook();

    /** How long a webhook's receiver may take to answer before the send counts as failed (tried again later). */
    @WithDefault("PT10S")
    Duration webhookTimeout();

    /** The decision page's origin as people reach it (https://decide.example.com): every message links there. */
    Optional<URI> decisionPageUrl();

    /** The sender address of notification e-mails. */
    @WithDefault("countersign@localhost")
    String from();

    /**
     * How long after it is planned a notification is due: an action decided meanwhile (a person confirming in the chat
     * at once) tells nobody.
     */
    @WithDefault("PT30S")
    Duration delay();

    /**
     * How long before its decision window closes an action still waiting is reminded of, once, to the people who may
     * decide it and have not approved it; only an action that has waited at least this long. Zero: no reminders.
     */
    @WithDefault("PT5M")
    @DurationMin(seconds = 0)
    Duration remindBefore();

    /** How often the planner and the sender look for work. */
    @WithDefault("PT1S")
    Duration pollInterval();

    /** How many requests, or notifications, one run takes. */
    @WithDefault("50")
    int batch();

    /**
     * How long a claimed notification is left to its sender before another may send it again. A send is abandoned after
     * half of it (at most five minutes): a mail server slower than that may get the message twice.
     */
    @WithDefault("PT10M")
    Duration lease();

    /** Sends tried before a notification is given up ({@code failed}). */
    @WithDefault("5")
    int attempts();
}
