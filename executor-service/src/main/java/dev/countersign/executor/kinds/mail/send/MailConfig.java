package dev.countersign.executor.kinds.mail.send;

import java.time.Duration;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Where {@code mail.send} sends from and how long one send may take (the SMTP server: {@code quarkus.mailer.*}). */
@ConfigMapping(prefix = "countersign.external.mail")
public interface MailConfig {

    /** Whether {@code mail.send} can run here (an SMTP server is configured). */
    @WithDefault("false")
    boolean enabled();

    @WithDefault("countersign@localhost")
    String from();

    @WithDefault("PT10S")
    @DurationMin(millis = 1)
    Duration timeout();
}
