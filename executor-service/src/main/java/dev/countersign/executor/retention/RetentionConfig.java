package dev.countersign.executor.retention;

import java.time.Duration;

import jakarta.validation.constraints.Min;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** How long the event-carrying tables keep rows ({@link RetentionSweep}). */
@ConfigMapping(prefix = "countersign.retention")
public interface RetentionConfig {

    /** A published outbox row older than this is deleted (it only carried an event already on the topic). */
    @WithDefault("P7D")
    @DurationMin(seconds = 0)
    Duration outbox();

    /**
     * A consumer's dedup record older than this is deleted. Must exceed the longest time a consumed record can be
     * delivered again: the retention of countersign.actions.proposed and countersign.actions.decisions (deploy/k8s
     * keeps them a day and an hour; Kafka's own default is 7 days), since a consumer group that lost its offsets reads
     * a topic from the start of what it keeps.
     */
    @WithDefault("P14D")
    @DurationMin(seconds = 0)
    Duration processedEvents();

    /**
     * How often the sweep runs. Read by the schedule of {@link RetentionSweep#sweepOnSchedule()}; declared here so it
     * is validated and documented with the other settings.
     */
    @WithDefault("PT1H")
    @DurationMin(millis = 100)
    Duration every();

    /** Rows deleted per statement; a sweep repeats the statement until a batch comes back short. */
    @WithDefault("5000")
    @Min(1)
    int batch();
}
